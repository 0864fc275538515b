"""The interpreter runs PyTorch-style Python as Python does, one top-level statement at a time.

Each test reads as an example session: source in, printed/echoed text or a one-line error out.
`import torch` is the engine throughout.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tensorscope.interpreter import ErrorInfo, Interpreter, Statement, UserError, parse

SEEDS = Path(__file__).resolve().parents[1] / "data" / "seeds"


# ----------------------------------------------------------------------------- parse


def test_parse_splits_top_level_statements_with_their_lines():
    source = "import torch  \nx = 1; y = 2\n\n@staticmethod\ndef f(a):\n    # inside\n    return a  # trailing\nf(1)\n"
    assert parse(source) == [
        Statement("import torch", 1),
        Statement("x = 1", 2),
        Statement("y = 2", 2),
        Statement("@staticmethod\ndef f(a):\n    # inside\n    return a  # trailing", 4),
        Statement("f(1)", 8),
    ]


def test_parse_keeps_comments_multiline_statements_and_non_ascii_text():
    source = "w = torch.FloatTensor(10) # w 是个 leaf tensor\nprint('é',\n      'ü');  x = 'ü'"
    assert [s.source for s in parse(source)] == [
        "w = torch.FloatTensor(10) # w 是个 leaf tensor", "print('é',\n      'ü')", "x = 'ü'"]


def test_trimmed_statements_still_run_their_exact_text(session):
    [statement] = parse("''' Output: \nlast '''")
    assert statement.source == "''' Output:\nlast '''"
    assert session.interpreter.run(statement).output == r"' Output: \nlast '"


@pytest.mark.parametrize(("source", "error"), [
    ("x = (", ErrorInfo("SyntaxError", "'(' was never closed (<input>, line 1, column 5)")),
    ("a b", ErrorInfo("SyntaxError", "invalid syntax (<input>, line 1, column 3)")),
    ("if x:\npass", ErrorInfo("IndentationError",
                             "expected an indented block after 'if' statement on line 1 (<input>, line 2, column 1)")),
    ("x = 1\nreturn x", ErrorInfo("SyntaxError", "'return' outside function (<input>, line 2, column 1)")),
    ("for i in x:\n    def f():\n        break", ErrorInfo("SyntaxError", "'break' outside loop (<input>, line 3, column 9)")),
    ("continue", ErrorInfo("SyntaxError", "'continue' not properly in loop (<input>, line 1, column 1)")),
    ("nonlocal x", ErrorInfo("SyntaxError", "nonlocal declaration not allowed at module level (<input>, line 1, column 1)")),
    ("x = '\0'", ErrorInfo("SyntaxError", "source code string cannot contain null bytes (<input>)")),
    ("print(1)\n*x", ErrorInfo("SyntaxError", "can't use starred expression here (<input>, line 2, column 1)")),
    ("a, *b, *c = x", ErrorInfo("SyntaxError", "multiple starred expressions in assignment (<input>, line 1, column 1)")),
    ("def f(a, a):\n    pass", ErrorInfo("SyntaxError", "duplicate argument 'a' in function definition (<input>, line 1, column 1)")),
])
def test_parse_reports_syntax_errors_as_python_words_them_with_line_and_column(source, error):
    with pytest.raises(UserError) as caught:
        parse(source)
    assert caught.value.info == error


def test_run_reports_syntax_errors_at_the_statement_line():
    outcome = Interpreter().run(Statement("x = = 1", 7))
    assert outcome.error == ErrorInfo("SyntaxError", "invalid syntax (<input>, line 7, column 5)")


def test_run_source_gives_one_outcome_for_unparseable_source():
    [(statement, outcome)] = Interpreter().run_source("x = 1\ny = (")
    assert statement.lineno == 1 and outcome.error.type == "SyntaxError"


# ----------------------------------------------------------------------------- outcomes


def test_expression_statements_echo_their_repr_like_the_repl(session):
    assert session.ok("1 + 1") == "2"
    assert session.ok("'text'") == "'text'"
    assert session.ok("None") is None
    assert session.ok("x = 5") is None
    assert session.ok("for i in range(3):\n    i") == "0\n1\n2"  # the REPL echoes in module-level blocks
    assert session.ok("def f():\n    42\nf()") is None  # but not inside functions


def test_docstrings_and_pasted_output_blocks_echo_like_the_repl(session):
    assert session.ok('"""A module docstring."""') == "'A module docstring.'"
    assert session.ok("''' Output:\n[1. 1.]\n'''") == "' Output:\\n[1. 1.]\\n'"


def test_print_output_honours_sep_and_end_and_drops_one_trailing_newline(session):
    assert session.ok("print(1, 2, sep='-', end='!\\n\\n')") == "1-2!\n"
    assert session.ok("print('a', end='')\nprint('b')") == "a\nb"


def test_output_printed_before_an_error_is_kept(session):
    [outcome] = session.outcomes("print('before'); 1 / 0" .replace("; ", "\n"))[1:]
    assert outcome.error == ErrorInfo("ZeroDivisionError", "division by zero")
    [printed, _] = session.outcomes("print('before')\n1 / 0")
    assert printed.output == "before"
    [both] = session.outcomes("for x in [1, 0]:\n    print(1 / x)")
    assert both.output == "1.0" and both.error.type == "ZeroDivisionError"


def test_warnings_are_captured_as_category_and_message(torch_session):
    [outcome] = torch_session.outcomes("(torch.ones(1, requires_grad=True) * 2).grad")
    assert outcome.error is None
    assert outcome.warnings[0].startswith("UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor")


# ----------------------------------------------------------------------------- imports


@pytest.mark.parametrize("statement", [
    "import torch", "import torch as t", "import numpy as np", "import torch.nn as nn",
    "import torch.nn.functional as F", "from torch import nn", "from torch.nn import functional as F",
    "import math", "import torch.nn.init as init", "from torch.autograd import grad",
    "from __future__ import annotations", "from torch.nn import *",
])
def test_supported_imports(session, statement):
    session.ok(statement)


def test_import_of_a_submodule_binds_the_package(session):
    assert session.ok("import torch.nn\ntorch.nn.ReLU()") == "ReLU()"


@pytest.mark.parametrize("statement", ["import torch.distributed", "import jax", "from os import path"])
def test_unsupported_imports_name_what_is_available(session, statement):
    error = session.error(statement)
    assert error.type == "ModuleNotFoundError"
    assert "tensorscope provides: torch, torch.nn, torch.nn.functional" in error.message
    assert session.ok("1 + 1") == "2"


def test_import_from_of_a_missing_name(session):
    assert session.error("from torch import distributed") == ErrorInfo(
        "ImportError", "cannot import name 'distributed' from 'torch' (tensorscope)")


# ----------------------------------------------------------------------------- assignment


def test_tuple_unpacking_and_starred_targets(session):
    assert session.ok("a, (b, c) = 1, (2, 3)\nfirst, *rest = 'xyz'\na, b, c, first, rest") == \
        "(1, 2, 3, 'x', ['y', 'z'])"
    assert session.error("a, b = [1]") == ErrorInfo("ValueError", "not enough values to unpack (expected 2, got 1)")
    assert session.error("a, b = [1, 2, 3]") == ErrorInfo("ValueError", "too many values to unpack (expected 2)")
    assert session.error("a, b = 5") == ErrorInfo("TypeError", "cannot unpack non-iterable int object")


def test_attribute_and_subscript_targets(torch_session):
    out = torch_session.ok("""
        class Box:
            pass
        box = Box()
        box.items = [0, 0, 0]
        box.items[1] = 'one'
        box.items[::2] = ['a', 'b']
        box.items
    """)
    assert out == "['a', 'one', 'b']"
    assert torch_session.ok("t = torch.zeros(2, 3)\nt[0, 1:] = 5\nt[..., 0] += 1\nt") == \
        "tensor([[1., 5., 5.],\n        [1., 0., 0.]])"


def test_augmented_assignment_calls_iadd_then_rebinds(session):
    out = session.ok("""
        xs = [1]
        alias = xs
        xs += [2]          # list.__iadd__: same object
        t = (1,)
        same = t
        t += (2,)          # tuple has no __iadd__: a new object
        alias is xs, xs, same is t, t
    """)
    assert out == "(True, [1, 2], False, (1, 2))"


def test_resnet_block_out_plus_residual_is_in_place(torch_session):
    torch_session.ok("""
        class BasicBlock(nn.Module):
            def __init__(self, channels):
                super().__init__()
                self.conv = nn.Conv2d(channels, channels, 3, padding=1)
                self.relu = nn.ReLU(inplace=True)

            def forward(self, x):
                residual = x
                out = self.conv(x)
                out = self.relu(out)
                before = id(out)
                out += residual
                self.in_place = id(out) == before
                return out

        torch.manual_seed(0)
        block = BasicBlock(2)
        y = block(torch.randn(1, 2, 4, 4, requires_grad=True))
    """)
    assert torch_session.ok("block.in_place, type(y.grad_fn).__name__") == "(True, 'AddBackward0')"
    error = torch_session.error("y.sum().backward()")
    assert error.type == "RuntimeError"
    assert "which is output 0 of Relu, is at version 2; expected version 1 instead" in error.message


def test_data_attribute_augmented_assignment(torch_session):
    assert torch_session.ok("a = torch.tensor(1.0, requires_grad=True)\na.data *= 3\na") == \
        "tensor(3., requires_grad=True)"


def test_walrus_binds_in_the_enclosing_scope(session):
    assert session.ok("[last := i for i in range(3)]\nlast") == "[0, 1, 2]\n2"


# ----------------------------------------------------------------------------- expressions


def test_operators(torch_session):
    assert torch_session.ok("7 // 2, 7 % 3, 2 ** 10, 7 / 2, -3, +3, ~5, 6 & 3, 6 | 3, 6 ^ 3, 1 << 4, 256 >> 2") == \
        "(3, 1, 1024, 3.5, -3, 3, -6, 2, 7, 5, 16, 64)"
    assert torch_session.ok("(torch.ones(2, 3) @ torch.ones(3)).tolist()") == "[3.0, 3.0]"
    assert torch_session.ok("'ab' * 2, [0] * 3, 'x' in 'xyz', 3 not in [1, 2], None is None, 1 is not None") == \
        "('abab', [0, 0, 0], True, True, True, True)"


def test_chained_comparisons_evaluate_each_operand_once_and_short_circuit(session):
    out = session.ok("""
        calls = []
        def v(x):
            calls.append(x)
            return x
        v(1) < v(2) < v(3), v(3) < v(2) < v(1), calls
    """)
    assert out == "(True, False, [1, 2, 3, 3, 2])"


def test_boolean_operators_short_circuit_and_return_operands(session):
    assert session.ok("0 or 'x', 1 and 0, [] or {} or 'last', 1 and 2 and 3, not []") == \
        "('x', 0, 'last', 3, True)"
    assert session.ok("False and undefined_name") == "False"
    assert session.ok("'yes' if 1 else undefined_name, 'no' if 0 else 'else'") == "('yes', 'else')"


def test_tensor_comparisons_keep_pytorch_semantics(torch_session):
    assert torch_session.ok("torch.tensor([1, 5]) > 2") == "tensor([False,  True])"
    error = torch_session.error("0 < torch.tensor([1, 5]) < 3")
    assert error == ErrorInfo("RuntimeError", "Boolean value of Tensor with more than one value is ambiguous")


def test_subscripts_slices_ellipsis_and_none(torch_session):
    assert torch_session.ok("x = torch.arange(6).view(2, 3)\nx[..., None].shape, x[:, 1], x[1, ::2], x[-1]") == \
        "(torch.Size([2, 3, 1]), tensor([1, 4]), tensor([3, 5]), tensor([3, 4, 5]))"
    assert torch_session.ok("[1, 2, 3][::-1], 'hello'[1:-1], (1, 2)[0]") == "([3, 2, 1], 'ell', 1)"


def test_literals(session):
    assert session.ok("[1, *[2, 3]], (1,), {'a': 1, **{'b': 2}}, {1, 2, 2}, {*'aa'}, (), {}, 1e3, 0x10, b'x', 2j") == \
        "([1, 2, 3], (1,), {'a': 1, 'b': 2}, {1, 2}, {'a'}, (), {}, 1000.0, 16, b'x', 2j)"


def test_f_strings_with_format_specs_conversions_and_nesting(torch_session):
    assert torch_session.ok("w = 8\nv = 3.14159\nf'{v:.2f}|{v!r}|{\"s\"!s:>{w}}|{255:#x}|{1000000:,}|{v=}'") == \
        "'3.14|3.14159|       s|0xff|1,000,000|v=3.14159'"
    assert torch_session.ok("f'{torch.tensor(2.5):.1f} {torch.ones(2)}'") == "'2.5 tensor([1., 1.])'"


def test_str_format_and_percent_formatting(torch_session):
    out = torch_session.ok("""
        t = torch.ones(2, 3)
        print('{0} {name} {0} {1[0]} {t.shape}'.format(1, [2], name='n', t=t))
        print('%s|%5.1f|%-3d|' % ('a', 2.25, 7))
        print('%(x)s %(y)r' % {'x': 1, 'y': 'b'})
        print(str.format('{:>4}', 'r'), '{a}'.format_map({'a': 'm'}))
    """)
    assert out == "1 n 1 2 torch.Size([2, 3])\na|  2.2|7  |\n1 'b'\n   r m"


def test_lambda(session):
    assert session.ok("square = lambda x, p=2: x ** p\nsquare(3), square(2, p=5), sorted([3, 1, 2], key=lambda v: -v)") == \
        "(9, 32, [3, 2, 1])"


# ----------------------------------------------------------------------------- comprehensions


def test_comprehensions_have_their_own_scope(session):
    out = session.ok("""
        x = 'outer'
        squares = [x * x for x in range(4)]
        evens = {x for x in range(6) if x % 2 == 0}
        table = {k: v for k, v in zip('ab', [1, 2])}
        pairs = [(i, j) for i in range(3) for j in range(i) if j]
        squares, evens, table, pairs, x
    """)
    assert out == "([0, 1, 4, 9], {0, 2, 4}, {'a': 1, 'b': 2}, [(2, 1)], 'outer')"


def test_generator_expressions_are_lazy(session):
    out = session.ok("""
        seen = []
        def note(v):
            seen.append(v)
            return v
        gen = (note(i) for i in range(3))
        before = list(seen)
        next(gen), before, sum(gen), seen
    """)
    assert out == "(0, [], 3, [0, 1, 2])"


def test_class_body_comprehension_sees_only_its_first_iterable(session):
    assert session.ok("class K:\n    xs = [1, 2]\n    doubled = [x * 2 for x in xs]\nK.doubled") == "[2, 4]"
    error = session.error("class L:\n    n = 2\n    bad = [n for _ in range(2)]")
    assert error == ErrorInfo("NameError", "name 'n' is not defined")


# ----------------------------------------------------------------------------- functions


def test_get_memory_allocated_shape_of_function(torch_session):
    """The structure of the CUDA seed's helper (docstring, default argument, if/else, tuple
    return), measured on CPU storages instead of CUDA statistics."""
    torch_session.ok("""
        def get_memory_allocated(device, inplace = False):
            '''
            Function measures allocated memory before and after the ReLU function call.
            '''
            t = torch.randn(100, 100, device=device)
            start = t.untyped_storage().nbytes()
            if inplace:
                output = F.relu_(t)
            else:
                output = F.relu(t)
            shares = output.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
            return shares, start / 1024**2
        device = torch.device("cpu")
    """)
    assert torch_session.ok("get_memory_allocated(device, inplace = False)") == "(False, 0.03814697265625)"
    assert torch_session.ok("get_memory_allocated(device, inplace = True)") == "(True, 0.03814697265625)"
    assert torch_session.ok("get_memory_allocated.__doc__.split()[0]") == "'Function'"


def test_parameters_defaults_star_args_and_keyword_only(session):
    session.ok("def f(a, b=2, *args, c, d=4, **kwargs):\n    return a, b, args, c, d, kwargs")
    assert session.ok("f(1, c=3)") == "(1, 2, (), 3, 4, {})"
    assert session.ok("f(*[1, 2, 3], c=5, **{'e': 6})") == "(1, 2, (3,), 5, 4, {'e': 6})"
    assert session.error("f(1)") == ErrorInfo("TypeError", "f() missing 1 required keyword-only argument: 'c'")
    assert session.error("f()") == ErrorInfo("TypeError", "f() missing 1 required positional argument: 'a'")
    assert session.error("f(1, c=1, b=1, a=2)") == ErrorInfo("TypeError", "f() got multiple values for argument 'a'")
    assert session.error("def g(x):\n    pass\ng(1, 2)") == \
        ErrorInfo("TypeError", "g() takes 1 positional argument but 2 were given")
    assert session.error("g(y=1)") == ErrorInfo("TypeError", "g() got an unexpected keyword argument 'y'")
    assert session.error("def h(p, /):\n    pass\nh(p=1)") == ErrorInfo(
        "TypeError", "h() got some positional-only arguments passed as keyword arguments: 'p'")


def test_closures_nonlocal_and_global(session):
    out = session.ok("""
        total = 0
        def make_counter():
            count = 0
            def increment(step=1):
                nonlocal count
                global total
                count += step
                total += step
                return count
            return increment
        counter = make_counter()
        counter(), counter(5), total
    """)
    assert out == "(1, 6, 6)"


def test_closures_see_later_bindings_and_report_unbound_names(session):
    assert session.ok("def outer():\n    def inner():\n        return y\n    y = 'late'\n    return inner()\nouter()") == \
        "'late'"
    assert session.error("def f():\n    print(v)\n    v = 1\nf()") == ErrorInfo(
        "UnboundLocalError", "cannot access local variable 'v' where it is not associated with a value")


def test_recursion_and_return(session):
    assert session.ok("def fact(n):\n    if n <= 1:\n        return 1\n    return n * fact(n - 1)\nfact(20)") == \
        "2432902008176640000"


def test_decorators_including_torch_no_grad(torch_session):
    out = torch_session.ok("""
        def twice(fn):
            def wrapper(*args):
                return fn(fn(*args))
            return wrapper

        @twice
        def inc(x):
            return x + 1

        @torch.no_grad()
        def grad_mode():
            return torch.is_grad_enabled()

        inc(1), grad_mode(), torch.is_grad_enabled()
    """)
    assert out == "(3, False, True)"


# ----------------------------------------------------------------------------- classes


def test_module_subclass_with_super_init_and_forward(torch_session):
    out = torch_session.ok("""
        class Net(nn.Module):
            '''Two layers.'''
            hidden = 4

            def __init__(self):
                super().__init__()
                self.fc1 = nn.Linear(3, Net.hidden)
                self.fc2 = nn.Linear(self.hidden, 1)

            def forward(self, x):
                return self.fc2(F.relu(self.fc1(x)))

        class Older(nn.Module):
            def __init__(self):
                super(Older, self).__init__()
                self.net = Net()

            def forward(self, x):
                return self.net(x)

        generator = torch.manual_seed(0)
        model = Older()
        out = model(torch.ones(2, 3))
        out.shape, out.grad_fn is not None, len(list(model.parameters())), Net.__doc__
    """)
    assert out == "(torch.Size([2, 1]), True, 4, 'Two layers.')"
    assert torch_session.ok("model") == (
        "Older(\n  (net): Net(\n    (fc1): Linear(in_features=3, out_features=4, bias=True)\n"
        "    (fc2): Linear(in_features=4, out_features=1, bias=True)\n  )\n)")


def test_static_and_class_methods_properties_and_special_methods(session):
    out = session.ok("""
        class Vec:
            count = 0

            def __init__(self, *xs):
                self.xs = list(xs)
                self.__secret = 'mangled'
                Vec.count += 1

            @staticmethod
            def zero():
                return Vec(0, 0)

            @classmethod
            def of(cls, *xs):
                return cls(*xs)

            @property
            def norm1(self):
                return sum(abs(x) for x in self.xs)

            def __add__(self, other):
                return Vec(*[a + b for a, b in zip(self.xs, other.xs)])

            def __iadd__(self, other):
                self.xs = [a + b for a, b in zip(self.xs, other.xs)]
                return self

            def __len__(self):
                return len(self.xs)

            def __getitem__(self, i):
                return self.xs[i]

            def __repr__(self):
                return f'Vec{tuple(self.xs)}'

            def secret(self):
                return self.__secret, self.__prefix

            __prefix = 'class-private'

        class Vec3(Vec):
            def __repr__(self):
                return '3' + super().__repr__()

        v = Vec.of(1, -2)
        w = v
        v += Vec.zero()
        v + Vec(1, 1), w is v, v.norm1, len(v), list(v), v.secret(), Vec3(1, 2, 3), Vec.count
    """)
    assert out == "(Vec(2, -1), True, 3, 2, [1, -2], ('mangled', 'class-private'), 3Vec(1, 2, 3), 5)"


def test_user_exceptions_and_isinstance(session):
    out = session.ok("""
        class ShapeError(ValueError):
            pass
        try:
            raise ShapeError('bad shape')
        except ValueError as e:
            caught = (type(e).__name__, str(e), isinstance(e, ShapeError))
        caught
    """)
    assert out == "('ShapeError', 'bad shape', True)"
    assert session.error("raise ShapeError('again')") == ErrorInfo("ShapeError", "again")


def test_autograd_function_when_the_engine_provides_it(torch_session):
    if torch_session.ok("hasattr(torch.autograd, 'Function')") == "False":
        error = torch_session.error("class MyFn(torch.autograd.Function):\n    pass")
        assert error == ErrorInfo("AttributeError", "module 'torch.autograd' has no attribute 'Function'")
        return
    out = torch_session.ok("""
        class Square(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, grad):
                x, = ctx.saved_tensors
                return 2 * x * grad

        x = torch.tensor(3.0, requires_grad=True)
        Square.apply(x).backward()
        x.grad
    """)
    assert out == "tensor(6.)"


# ----------------------------------------------------------------------------- control flow


def test_with_no_grad_and_enable_grad(torch_session):
    out = torch_session.ok("""
        w = torch.ones(3, requires_grad=True)
        with torch.no_grad():
            w.data.normal_()
            inside = torch.is_grad_enabled()
            with torch.enable_grad():
                nested = torch.is_grad_enabled()
        inside, nested, torch.is_grad_enabled(), w.requires_grad
    """)
    assert out.endswith("(False, True, True, True)")  # the echoed normal_() result comes first


def test_with_restores_grad_mode_when_the_body_fails(torch_session):
    torch_session.error("with torch.no_grad():\n    1 / 0")
    assert torch_session.ok("torch.is_grad_enabled()") == "True"


def test_user_context_manager_can_suppress_and_sees_exception(session):
    out = session.ok("""
        class Quiet:
            def __enter__(self):
                print('enter')
                return 'value'
            def __exit__(self, kind, exc, tb):
                print('exit', kind.__name__ if kind else None, tb)
                return True
        with Quiet() as got, Quiet():
            print(got)
            1 / 0
        print('after')
    """)
    assert out == "enter\nenter\nvalue\nexit ZeroDivisionError None\nexit None None\nafter"
    assert session.error("with 1:\n    pass") == ErrorInfo(
        "TypeError", "'int' object does not support the context manager protocol")


def test_if_elif_else_and_loops_with_break_continue_else(session):
    out = session.ok("""
        def classify(n):
            if n < 0:
                return 'neg'
            elif n == 0:
                return 'zero'
            else:
                return 'pos'
        found = []
        for i in range(10):
            if i % 2:
                continue
            if i > 6:
                break
            found.append(classify(i))
        else:
            found.append('no break')
        n = 0
        while n < 3:
            n += 1
        else:
            found.append(n)
        found
    """)
    assert out == "['zero', 'pos', 'pos', 'pos', 3]"


def test_try_except_else_finally(session):
    out = session.ok("""
        log = []
        def attempt(x):
            try:
                log.append(10 / x)
            except ZeroDivisionError as e:
                log.append(f'caught {e}')
                return 'handled'
            except (TypeError, ValueError):
                log.append('type or value')
            else:
                log.append('else')
            finally:
                log.append('finally')
        attempt(2), attempt(0), attempt('s'), log
    """)
    assert out == ("(None, 'handled', None, [5.0, 'else', 'finally', 'caught division by zero', 'finally', "
                   "'type or value', 'finally'])")


def test_catching_engine_errors_by_class(torch_session):
    out = torch_session.ok("""
        w = torch.ones(2, requires_grad=True)
        try:
            w.normal_()
        except RuntimeError as err:
            message = str(err)
        message
    """)
    assert out == "'a leaf Variable that requires grad is being used in an in-place operation.'"


def test_raise_forms(session):
    assert session.error("raise ValueError") == ErrorInfo("ValueError", "")
    assert session.error("raise KeyError('k') from None") == ErrorInfo("KeyError", "'k'")
    assert session.error("raise 5") == ErrorInfo("TypeError", "exceptions must derive from BaseException")
    assert session.error("raise") == ErrorInfo("RuntimeError", "No active exception to reraise")
    assert session.error("try:\n    [][0]\nexcept IndexError:\n    raise") == \
        ErrorInfo("IndexError", "list index out of range")
    assert session.ok("try:\n    raise TypeError('x') from KeyError('y')\nexcept TypeError as e:\n    e.args") == "('x',)"


def test_assert_del_and_pass(session):
    assert session.error("assert 1 == 2, 'one is not two'") == ErrorInfo("AssertionError", "one is not two")
    assert session.ok("assert True\npass\nx = 1\ndel x") is None
    assert session.error("x") == ErrorInfo("NameError", "name 'x' is not defined")
    assert session.ok("d = {'a': 1, 'b': 2}\ndel d['a']\nd") == "{'b': 2}"


def test_main_guard_in_pasted_scripts(session):
    assert session.ok("if __name__ == '__main__':\n    print('run')") == "run"


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize(("source", "error"), [
    ("z", ErrorInfo("NameError", "name 'z' is not defined")),
    ("torch.ones(1).foo", ErrorInfo("AttributeError", "'Tensor' object has no attribute 'foo'")),
    ("1 + 'a'", ErrorInfo("TypeError", "unsupported operand type(s) for +: 'int' and 'str'")),
    ("1 / 0", ErrorInfo("ZeroDivisionError", "division by zero")),
    ("[1][5]", ErrorInfo("IndexError", "list index out of range")),
    ("{'a': 1}['b']", ErrorInfo("KeyError", "'b'")),
    ("len(5)", ErrorInfo("TypeError", "object of type 'int' has no len()")),
    ("int('x')", ErrorInfo("ValueError", "invalid literal for int() with base 10: 'x'")),
    ("torch.ones(2, 3) @ torch.ones(2, 3)",
     ErrorInfo("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)")),
    ("{[1]: 2}", ErrorInfo("TypeError", "unhashable type: 'list'")),
    ("print(*5)", ErrorInfo("TypeError", "print() argument after * must be an iterable, not int")),
    ("for x in 5:\n    pass", ErrorInfo("TypeError", "'int' object is not iterable")),
    ("(1)()", ErrorInfo("TypeError", "'int' object is not callable")),
])
def test_errors_read_as_python_and_the_engine_word_them(torch_session, source, error):
    assert torch_session.error(source) == error
    assert torch_session.ok("1 + 1") == "2"


@pytest.mark.parametrize(("source", "error"), [
    ("def f():\n    def g():\n        return v\n    g()\n    v = 1\nf()",
     ErrorInfo("NameError", "cannot access free variable 'v' where it is not associated with a value in enclosing scope")),
    ("def f():\n    del v\n    v = 1\nf()",
     ErrorInfo("UnboundLocalError", "cannot access local variable 'v' where it is not associated with a value")),
    ("def f():\n    def g():\n        nonlocal missing\n    return g\nf()",
     ErrorInfo("SyntaxError", "no binding for nonlocal 'missing' found")),
    ("a, *b, c = [1]", ErrorInfo("ValueError", "not enough values to unpack (expected at least 2, got 1)")),
    ("super()", ErrorInfo("RuntimeError", "super(): no arguments")),
    ("def f():\n    return super()\nf()", ErrorInfo("RuntimeError", "super(): __class__ cell not found")),
    ("class A:\n    @staticmethod\n    def m():\n        return super()\nA.m()", ErrorInfo("RuntimeError", "super(): no arguments")),
    ("print(**1)", ErrorInfo("TypeError", "print() argument after ** must be a mapping, not int")),
    ("print(**{1: 2})", ErrorInfo("TypeError", "keywords must be strings")),
    ("print(sep='', **{'sep': ''})", ErrorInfo("TypeError", "print() got multiple values for keyword argument 'sep'")),
    ("{**[1]}", ErrorInfo("TypeError", "'list' object is not a mapping")),
    ("[*5]", ErrorInfo("TypeError", "Value after * must be an iterable, not int")),
    ("try:\n    1 / 0\nexcept 5:\n    pass",
     ErrorInfo("TypeError", "catching classes that do not inherit from BaseException is not allowed")),
    ("try:\n    1 / 0\nexcept KeyError:\n    pass", ErrorInfo("ZeroDivisionError", "division by zero")),
    ("from . import x", ErrorInfo("ImportError", "attempted relative import with no known parent package")),
    ("def f():\n    from torch import *", ErrorInfo("SyntaxError", "import * only allowed at module level (<input>, line 2, column 5)")),
    ("next(iter([]))", ErrorInfo("StopIteration", "")),
    ("getattr(1, 2)", ErrorInfo("TypeError", "attribute name must be string, not 'int'")),
    ("setattr(object(), 2, 1)", ErrorInfo("TypeError", "attribute name must be string, not 'int'")),
    ("print(1, file=None, sep=1)", ErrorInfo("TypeError", "sep must be None or a string, not int")),
    ("class K:\n    def __repr__(self):\n        return 5\nK()", ErrorInfo("TypeError", "__repr__ returned non-string (type int)")),
])
def test_less_common_errors_read_as_python(session, source, error):
    assert session.error(source) == error


def test_less_common_statement_forms(session):
    out = session.ok("""
        count: int = 3
        a, b = 1, 2
        del (a, b)
        def gone():
            global count
            del count
        gone()
        def outer():
            v = 1
            def inner():
                nonlocal v
                del v
            inner()
            return 'v' in dir()
        class Ctx:
            def __enter__(self):
                return self
            def __exit__(self, *exc):
                print('exit', exc)
        for i in range(3):
            with Ctx():
                break
        def first():
            with Ctx():
                return 'returned'
        def tag(cls):
            cls.tagged = True
            return cls
        @tag
        class Tagged:
            pass
        first(), Tagged.tagged, 'count' in dir()
    """)
    assert out == "exit (None, None, None)\nexit (None, None, None)\n('returned', True, False)"


def test_unsupported_syntax_is_a_clear_error(session):
    error = session.error("def gen():\n    print((yield 1))")
    assert error == ErrorInfo("NotImplementedError", "tensorscope supports yield as a statement or as the whole value of "
                                                     "an assignment or a return (x = yield v), not inside another expression")
    assert session.error("f = lambda: (yield)").type == "NotImplementedError"
    assert session.error("async def f():\n    pass").type == "NotImplementedError"


def test_a_bug_in_the_interpreter_is_reported_as_internal_error(monkeypatch):
    """Simulate a bug: `pass` dispatched to the handler of expression statements, which then
    reads a field a Pass node does not have."""
    interpreter = Interpreter()
    monkeypatch.setitem(interpreter._statements, ast.Pass, interpreter.exec_Expr)
    [(_, outcome)] = interpreter.run_source("pass")
    assert outcome.error.type == "InternalError"
    assert outcome.error.message.startswith("AttributeError: 'Pass' object has no attribute 'value'")
    [_, (_, outcome)] = interpreter.run_source("class Pass:\n    x = 0\nPass().value")
    assert outcome.error == ErrorInfo("AttributeError", "'Pass' object has no attribute 'value'")


# ----------------------------------------------------------------------------- the seed documents

RAW_ID = re.compile(r"^\d{9,}$")


def _seed_outcome(name: str) -> str:
    """What a seed block prints, warns and raises when run statement by statement, in the format
    of tests/data/seeds/*.expected (which record a script run: the echo of bare expressions is
    left out and the first error ends it)."""
    interpreter = Interpreter()
    interpreter.run_source("import torch")
    if name == "004_02_w_data_normal":
        interpreter.run_source((SEEDS / "004_01_leaf_normal_error.py").read_text())
    printed, warned, error = [], [], None
    for statement, outcome in interpreter.run_source((SEEDS / f"{name}.py").read_text()):
        assert outcome.error is None or outcome.error.type != "InternalError"
        node = ast.parse(statement.source).body[0]
        is_echo = isinstance(node, ast.Expr) and not (
            isinstance(node.value, ast.Call) and getattr(node.value.func, "id", None) == "print")
        if outcome.output is not None and not is_echo:
            printed.append(outcome.output)
        warned += outcome.warnings
        if outcome.error is not None:
            error = str(outcome.error)
            break
    text = "".join("<id() value>\n" if RAW_ID.match(line) else line + "\n" for line in "\n".join(printed).split("\n")) \
        if printed else ""
    if warned:
        text += "--- warnings ---\n" + "".join(w + "\n" for w in warned)
    if error is not None:
        text += "--- exception ---\n" + error + "\n"
    return text


@pytest.mark.parametrize("name", sorted(p.stem for p in SEEDS.glob("*.expected")))
def test_seed_blocks_print_what_the_script_printed(name):
    assert _seed_outcome(name) == (SEEDS / f"{name}.expected").read_text()
