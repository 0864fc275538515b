"""A storage numpy may hold is not resizable: torch.from_numpy, .numpy() and np.asarray(t) mark it so
for good, because growing it would move the bytes out from under the array. Shrinking and growing
back within its bytes still work. Each snippet is compared with torch.

torch's resize_ (and set_, and an out= argument) sets the new sizes before it finds the storage
cannot grow, leaving a tensor that reads past its storage; the engine leaves the tensor as it was.
So the snippets resize an unnamed alias (`t[:]`), whose state nobody reads afterwards, and a storage
that does grow is read only within its old bytes (the new ones are uninitialised)."""

import pytest

from tests.oracle import torch_and_engine

pytest.importorskip("torch")

SNIPPETS = {
    "from_numpy then resize_ bigger, smaller, back": (
        "t = torch.from_numpy(np.zeros(4, dtype=np.float32))\nsmaller = t.resize_(2).shape\n"
        "back = t.resize_(4).shape\nt[:].resize_(8)"),
    ".numpy() of a view holds its base's storage": (
        "v = torch.zeros(4)\nw = v.view(2, 2)\narray = w.numpy()\nv[:].resize_(8)"),
    "the array gone, the storage stays held": (
        "u = torch.zeros(4)\nu.numpy()\nsame = u.resize_(2, 2).shape\nu[:].resize_(8)"),
    "numpy(force=True) holds it too": (
        "z = torch.zeros(4, requires_grad=True)\narray = z.numpy(force=True)\nz.detach()[:].resize_(8)"),
    "np.asarray of a tensor": ("f = torch.zeros(4)\narray = np.asarray(f)\nf[:].resize_(8)"),
    "tolist does not hold it": ("e = torch.zeros(4)\nvalues = e.tolist()\ne[:].resize_(8)\nbytes = e.untyped_storage().nbytes()"),
    "a clone has a storage of its own": (
        "c = torch.zeros(4)\nc.numpy()\nd = c.clone()\nd[:].resize_(8)\nbytes = d.untyped_storage().nbytes()\n"
        "c[:].resize_(8)"),
    "set_ onto a held storage cannot grow it": (
        "x = torch.zeros(4)\nx.numpy()\nfits = torch.zeros(0).set_(x.untyped_storage(), 0, (2,)).shape\n"
        "torch.zeros(0).set_(x.untyped_storage(), 0, (8,))"),
    "an out= tensor that must grow": (
        "b = torch.zeros(2)\nb.numpy()\ntorch.add(torch.ones(4), 1, out=b[:])"),
    "the fuzzer's case: out= onto an as_strided view of a held storage": (
        "h = torch.full((1, 1, 2,), 2.0, requires_grad=True)\nb = torch.zeros(2, 2)\ne = b.t() @ b\nh.data = e\n"
        "with torch.no_grad():\n    h.numpy()\n"
        "f = torch.arange(6.).reshape(2, 3).expand_as(torch.empty(2, 2, 3))\n"
        "torch.clamp(f, -1, 1, out=e.as_strided((1, 1), (2, 1), 0))"),
}


@pytest.mark.parametrize("code", list(SNIPPETS.values()), ids=list(SNIPPETS))
def test_a_storage_numpy_holds_is_not_resizable_as_in_torch(code):
    expected, got = torch_and_engine(code)
    assert got == expected
