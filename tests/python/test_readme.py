"""The README's Python example runs as printed and writes what it says."""
import os
import re
import subprocess
import sys

import cv2
import numpy as np

import clvision

README = os.path.join(os.path.dirname(__file__), '..', '..', 'README.md')
REPO = os.path.dirname(os.path.abspath(README))


def example(i=0):
    with open(README) as f:
        text = f.read()
    section = text.split('\n## Python\n', 1)[1].split('\n## ', 1)[0]
    code = re.findall(r'```python\n(.*?)```', section, re.S)[i]
    return '\n'.join(line[2:] if i else line for line in code.splitlines())  # a list item's


def test_readme_example(tmp_path):
    code = example()
    assert len(code.strip().splitlines()) <= 12
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    code = code.replace("'tests/data/", "'%s/tests/data/" % REPO)
    r = subprocess.run([sys.executable, '-c', code], cwd=tmp_path, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    img = cv2.imread(os.path.join(REPO, 'tests/data/chelsea.png'))
    assert np.array_equal(cv2.imread(str(tmp_path / 'blur.png')),
                          clvision.gaussian_blur(img, 2.0))
    smooth = cv2.imread(str(tmp_path / 'smooth.png'))
    rgb = clvision.bilateral_grid(np.ascontiguousarray(img[:, :, ::-1]))
    assert np.array_equal(smooth, rgb[:, :, ::-1])
    flow = clvision.flo_read(str(tmp_path / 'flow.flo'))
    prev = cv2.imread(os.path.join(REPO, 'tests/data/flow_chelsea0.png'), cv2.IMREAD_GRAYSCALE)
    assert flow.shape == prev.shape + (2,)
    assert np.abs(flow).max() > 0.5
    assert cv2.imread(str(tmp_path / 'flow.png')).shape == flow.shape[:2] + (3,)


def test_readme_aligned_example():
    """The aligned-arrays example: its arrays start on 64 bytes and its results
    are the copying path's."""
    ns = {}
    exec(example(1).replace("'tests/data/", "'%s/tests/data/" % REPO), ns)
    img, out, t = ns['img'], ns['out'], ns['t']
    assert img.ctypes.data % 64 == 0 and out.ctypes.data % 64 == 0
    assert t.strides[0] % 64 == 0 and t.ctypes.data % 64 == 0
    plain = np.ascontiguousarray(img)
    assert np.array_equal(out, clvision.gaussian_blur(plain, 2.0))
    assert np.array_equal(t, plain.transpose(1, 0, 2))
    from numpy.core.multiarray import get_handler_name
    assert get_handler_name() == 'default_allocator'
