"""Calls whose random values must be Paddle's own, bit for bit, after `paddle.seed(seed)`.

Each entry: name -> (seed, source of a function of `paddle` returning a Tensor). The sizes cross
the engine's block of 312 words and the polar method's rejections; odd counts leave half a pair.
"""

CALLS: dict[str, tuple[int, str]] = {
    "rand": (0, "lambda paddle: paddle.rand([2])"),
    "rand_large": (1, "lambda paddle: paddle.rand([1000, 37])"),
    "rand_float64": (2, "lambda paddle: paddle.rand([333], dtype='float64')"),
    "randn": (0, "lambda paddle: paddle.randn([3])"),
    "randn_odd_large": (3, "lambda paddle: paddle.randn([10001])"),
    "randn_float64": (4, "lambda paddle: paddle.randn([777], dtype='float64')"),
    "standard_normal": (5, "lambda paddle: paddle.standard_normal([5, 5])"),
    "normal": (6, "lambda paddle: paddle.normal(0.1, 0.3, [2000])"),
    "normal_tensor_mean": (7, "lambda paddle: paddle.normal(paddle.ones([50]), 2.0)"),
    "uniform": (8, "lambda paddle: paddle.uniform([3000], min=-2.7, max=3.1)"),
    "uniform_float64": (9, "lambda paddle: paddle.uniform([3000], dtype='float64', min=-2.7, max=3.1)"),
    "uniform_seeded_call": (0, "lambda paddle: paddle.uniform([10], seed=123)"),
    "uniform_inplace_seeded_call": (0, "lambda paddle: paddle.zeros([5]).uniform_(-1.0, 1.0, seed=9)"),
    "uniform_defaults": (22, "lambda paddle: paddle.concat([paddle.uniform([4]), paddle.zeros([4]).uniform_()])"),
    "randint": (10, "lambda paddle: paddle.randint(0, 10, [5000])"),
    "randint_wide": (11, "lambda paddle: paddle.randint(-2**31, 2**31 - 1, [5000])"),
    "randperm": (12, "lambda paddle: paddle.randperm(1000)"),
    "randperm_odd": (13, "lambda paddle: paddle.randperm(7)"),
    "bernoulli": (14, "lambda paddle: paddle.bernoulli(paddle.full([1000], 0.3))"),
    "dropout": (15, "lambda paddle: paddle.nn.functional.dropout(paddle.ones([1000]), 0.4)"),
    "uniform_inplace": (16, "lambda paddle: paddle.zeros([700]).uniform_(-1.0, 2.0)"),
    "normal_inplace": (17, "lambda paddle: paddle.zeros([701]).normal_(0.5, 2.0)"),
    "linear_init": (18, "lambda paddle: paddle.nn.Linear(13, 7).weight"),
    "conv_init": (19, "lambda paddle: paddle.nn.Conv2D(3, 8, 3).weight"),
    "initializers": (20, "lambda paddle: paddle.concat([_init(paddle, c) for c in ("
                         "'Normal(0.2, 1.5)', 'Uniform(-0.3, 0.4)', 'XavierNormal()', 'XavierUniform()', "
                         "'KaimingNormal()', 'KaimingUniform()')])"),
    "sequence": (21, "lambda paddle: paddle.concat([paddle.randn([3]), paddle.rand([5]), paddle.randn([4]), "
                     "paddle.randint(0, 5, [3]).astype('float32')])"),
}

HELPERS = '''
def _init(paddle, call):
    w = paddle.create_parameter([6, 4], 'float32')
    eval("paddle.nn.initializer." + call)(w)
    return w.reshape([-1])
'''


def values(paddle, name: str):
    """Seed, then make the named call's tensor; its values as a numpy array."""
    seed, source = CALLS[name]
    namespace: dict = {}
    exec(HELPERS, namespace)  # noqa: S102 - our own test code
    make = eval(source, namespace)  # noqa: S307 - our own test code
    paddle.seed(seed)
    return make(paddle).numpy()
