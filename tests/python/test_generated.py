"""The operation functions and the stubs come from the descriptors: names,
parameters, defaults and docs agree with _clvision.operations()."""
import ast
import inspect
import os

import numpy as np
import pytest

import clvision as c
_clvision = c._c

OWN = {'out', 'ctx', 'bgr', 'size', 'dtype'}


def visible(d):
    """The parameters a generated function takes: every one but output
    images, output arrays, structs and the lengths of input arrays."""
    derived = {p['length_param'] for p in d['params']
               if p['type'] == 'array' and p['flags'] & 1 and not p['flags'] & 2}
    return [p for p in d['params']
            if p['name'] not in derived and p['type'] != 'struct'
            and not (p['flags'] & 2 and p['type'] in ('image', 'array') and not p['flags'] & 1)]


def test_every_descriptor_is_a_function():
    ops = _clvision.operations()
    assert len(ops) == len(c.OPERATIONS) >= 19
    for d in ops:
        fn = getattr(c, d['name'])
        sig = inspect.signature(fn)
        names = [n for n in sig.parameters if n not in OWN]
        assert sorted(names) == sorted(p['name'] for p in visible(d)), d['name']
        for p in visible(d):
            prm = sig.parameters[p['name']]
            if not p['flags'] & 4:
                assert prm.default is prm.empty or p['type'] == 'array', (d['name'], p['name'])
                continue
            if p['type'] in ('int', 'double'):
                assert prm.default == p['default'], (d['name'], p['name'])
            elif p['type'] == 'bool':
                assert prm.default is bool(p['default'])
            elif p['type'] == 'enum':
                assert p['enum_values'][p['enum_names'].index(prm.default)] == p['default']
        assert d['summary'][1:] in fn.__doc__
        for p in visible(d):
            assert p['doc'] in fn.__doc__
        assert ('bgr' in sig.parameters) == any(p['flags'] & (1 << 10) for p in d['params'])


def test_defaults_are_the_c_defaults(gray):
    # a call with the defaults equals one with every default spelled out
    d = c.OPERATIONS['farneback']
    kw = {p['name']: p['default'] for p in d['params'] if p['type'] in ('int', 'double')}
    assert np.array_equal(c.farneback(gray, gray), c.farneback(gray, gray, **kw))


def test_stubs():
    path = os.environ.get('CLV_PY_STUBS')
    if not path:
        pytest.skip('CLV_PY_STUBS not set (meson test sets it)')
    with open(path) as f:
        tree = ast.parse(f.read())
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for name, d in c.OPERATIONS.items():
        f = funcs[name]
        args = [a.arg for a in f.args.args] + [a.arg for a in f.args.kwonlyargs]
        assert [a for a in args if a not in OWN] == [
            n for n in inspect.signature(getattr(c, name)).parameters if n not in OWN]
        for a, default in zip(f.args.args[::-1], f.args.defaults[::-1]):
            p = c.OPERATIONS[name]['params'][[q['name'] for q in d['params']].index(a.arg)]
            if p['type'] in ('int', 'double'):
                assert ast.literal_eval(default) == p['default']
        anns = {a.arg: ast.unparse(a.annotation) for a in f.args.args}
        for p in visible(d):
            want = {'int': 'int', 'double': 'float', 'bool': 'bool'}.get(p['type'])
            if want:
                assert anns[p['name']] == want, (name, p['name'])
