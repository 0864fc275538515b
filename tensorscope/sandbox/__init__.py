"""What user code may reach, and the meters that stop it: the policy half of the interpreter.

`tensorscope.interpreter` walks the AST; whenever it touches a user value (a name, an attribute, a
call, an operator, an import) it goes through this package, one module per concern:

- `builtin_names`: the explicit table of builtins, some replaced by metered versions;
- `modules`: `ModuleProxy` objects expose only listed names of the engine, numpy, math and the
  granted standard library (`stdlib`, one module per granted module);
- `callbacks`: user callables handed to code that is not interpreted run through the interpreter;
- `numpy_surface`: numpy's names, and the rules every numpy call passes (no raw memory, no
  object or structured dtypes, no user objects, result sizes in bytes);
- `attributes`: which `obj.name` user code may read, set or delete;
- `classes`: what a `class` statement may define (ordinary dunders only) and extend;
- `internal`: our own classes user code can hold, recognised by identity;
- `strings`: format guards and size-guarded string methods, recognised by identity;
- `limits`: every limit, the meter (steps, call depth, memory growth), the output cap and the
  tuple-nesting guard;
- `sizes`: guards that refuse results too large (in bytes) to build;
- `gateways`: where user-level errors may arise, so that any other exception is reported as a bug;
- `policy`: the Sandbox, one interpreter's policy, tying them together.
"""

from tensorscope.sandbox.builtin_names import left_out_builtin
from tensorscope.sandbox.gateways import gateway, is_user_error
from tensorscope.sandbox.limits import Counted, LimitExceeded, Meter, Uncatchable
from tensorscope.sandbox.modules import MODULE_NAMES, ModuleProxy, public_names
from tensorscope.sandbox.policy import Sandbox
from tensorscope.sandbox.sizes import check_binop, check_format_spec

__all__ = ["MODULE_NAMES", "Counted", "LimitExceeded", "Meter", "ModuleProxy", "Sandbox", "Uncatchable",
           "check_binop", "check_format_spec", "gateway", "is_user_error", "left_out_builtin", "public_names"]
