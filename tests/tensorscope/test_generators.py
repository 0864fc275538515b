"""Generator functions run as in CPython: yield, yield from, send, throw, close, return values,
consumed by for loops, list(), sum() and the engine; each program below prints the same in both."""

from __future__ import annotations

import pytest

from tensorscope.interpreter import ErrorInfo

from .conftest import Session
from .reference import python_output


def same_as_python(source: str) -> str | None:
    out = Session().ok(source)
    assert out == python_output(source)
    return out


def test_d2l_data_iter_runs_as_in_torch(torch):
    out = same_as_python("""
        import random
        import torch
        def synthetic_data(w, b, num_examples):
            X = torch.arange(num_examples * len(w), dtype=torch.float32).reshape(num_examples, len(w))
            y = torch.matmul(X, w) + b
            return X, y.reshape((-1, 1))
        def data_iter(batch_size, features, labels):
            num_examples = len(features)
            indices = list(range(num_examples))
            random.seed(7)
            random.shuffle(indices)
            for i in range(0, num_examples, batch_size):
                batch_indices = torch.tensor(indices[i: min(i + batch_size, num_examples)])
                yield features[batch_indices], labels[batch_indices]
        features, labels = synthetic_data(torch.tensor([2, -3.4]), 4.2, 10)
        for X, y in data_iter(4, features, labels):
            print(X, '\\n', y)
        sum(len(X) for X, _ in data_iter(3, features, labels))
    """)
    assert out.endswith("\n10")


def test_send_return_values_and_yield_from_as_in_python():
    same_as_python("""
        def averager():
            total, count, average = 0.0, 0, None
            while True:
                term = yield average
                if term is None:
                    return (count, average)
                total += term
                count += 1
                average = total / count
        def grouper(results, key):
            results[key] = yield from averager()
        results = {}
        group = grouper(results, 'a')
        next(group)
        for value in [10, 11, 12]:
            print(group.send(value))
        try:
            group.send(None)
        except StopIteration as stop:
            print('stopped', stop.value)
        results
        def chain(*iterables):
            for it in iterables:
                yield from it
        list(chain('ab', range(3), (x * x for x in range(3))))
        def countdown(n):
            while n > 0:
                yield n
                n -= 1
            return 'liftoff'
        g = countdown(2)
        [next(g), next(g), next(g, 'end')]
        def echo(prefix):
            received = yield
            while True:
                received = yield f'{prefix}{received}'
        e = echo('> ')
        next(e), e.send(1), e.send('x')
        type(e).__name__, e.__name__, e.__qualname__
    """)


def test_throw_close_finally_and_exception_handling_as_in_python():
    same_as_python("""
        log = []
        def guarded():
            try:
                yield 1
                yield 2
            except ValueError as exc:
                log.append(f'caught {exc}')
                yield 'recovered'
            finally:
                log.append('finally')
        g = guarded()
        next(g), g.throw(ValueError('bad'))
        g.close()
        log
        h = guarded()
        next(h)
        h.close()
        log
        def inner():
            try:
                yield 'i1'
                yield 'i2'
            finally:
                log.append('inner closed')
        def outer():
            yield from inner()
        o = outer()
        next(o)
        o.close()
        log[-1]
        def reraise():
            try:
                raise KeyError('k')
            except KeyError:
                yield 'in handler'
                raise
        r = reraise()
        next(r)
        try:
            next(r)
        except KeyError as exc:
            print('re-raised', repr(exc))
        def stops():
            raise StopIteration
            yield
        try:
            list(stops())
        except RuntimeError as exc:
            print(exc)
        def fresh():
            yield 1
        try:
            fresh().send(5)
        except TypeError as exc:
            print(exc)
        def nested(n):
            for i in range(n):
                with_stack = [i]
                for j in range(i):
                    if j % 2:
                        continue
                    yield i, j
                else:
                    with_stack.append('else')
            yield with_stack
        list(nested(4))
        def doubler():
            total = 0
            while True:
                total += yield total
        d = doubler(); next(d); d.send(3); d.send(4)
    """)


def test_generators_feed_the_engine_and_builtins(torch):
    same_as_python("""
        import torch
        import torch.nn as nn
        _ = torch.manual_seed(0)
        def batches(n):
            for i in range(n):
                yield torch.full((2, 3), float(i)), torch.tensor([i, i + 1])
        model = nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in batches(3):
            loss = (model(x).squeeze() - y).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        round(loss.item(), 4)
        torch.stack(list(x for x, _ in batches(2))).shape
        sorted(batches(1), key=lambda pair: pair[1].sum().item())[0][1]
        dict(zip('ab', (i for i in range(5))))
        max((i * i for i in range(5)), default=None)
    """)


def test_a_generator_runs_only_inside_a_statement_and_within_the_meters():
    session = Session()
    session.ok("def forever():\n    n = 0\n    while True:\n        n += 1\n        yield n\ng = forever()\nnext(g)")
    generator = session.interpreter.namespace["g"]
    from tensorscope.interpreter.core import OutsideStatement

    with pytest.raises(OutsideStatement):
        next(generator)
    limit = ErrorInfo("RuntimeError", "statement exceeded 1000000 steps (an endless loop?)")
    assert session.error("list(g)") == limit
    assert session.error("sum(forever())") == limit
    assert session.error("def deep(n):\n    yield n\n    yield from deep(n + 1)\nlist(deep(0))") == ErrorInfo(
        "RecursionError", "maximum recursion depth exceeded")
    assert session.error("next(g)") == ErrorInfo("StopIteration", "")  # stopped by the limit, it is finished


def test_a_dropped_generator_runs_no_user_code_but_restores_the_engines_state(torch_session):
    """Python's garbage collector closes it, maybe outside a statement: user cleanup does not run,
    torch.no_grad() still exits; close() runs everything."""
    out = torch_session.ok("""
        def gen():
            try:
                with torch.no_grad():
                    yield 1
            finally:
                print('cleanup')
                while True:
                    pass
        g = gen()
        next(g), torch.is_grad_enabled()
        del g
        torch.is_grad_enabled()
    """)
    assert out == "(1, False)\nTrue"
    assert torch_session.error("g = gen()\nnext(g)\ng.close()") == ErrorInfo(
        "RuntimeError", "statement exceeded 1000000 steps (an endless loop?)")


@pytest.mark.parametrize(("source", "error"), [
    ("def f():\n    [(yield) for x in y]", ErrorInfo("SyntaxError", "'yield' inside list comprehension (<input>, line 2, column 7)")),
    ("def f():\n    ((yield) for x in y)", ErrorInfo("SyntaxError", "'yield' inside generator expression (<input>, line 2, column 7)")),
    ("class K:\n    yield 1", ErrorInfo("SyntaxError", "'yield' outside function (<input>, line 2, column 5)")),
    ("def f():\n    print((yield))", ErrorInfo("NotImplementedError", "tensorscope supports yield as a statement or as the "
                                              "whole value of an assignment or a return (x = yield v), not inside another expression")),
])
def test_yield_where_python_or_tensorscope_refuses_it(source, error):
    assert Session().error(source) == error
