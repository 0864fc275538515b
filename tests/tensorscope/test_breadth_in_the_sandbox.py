"""Typed code reaches torch's wider API through the sandbox: data loading, schedulers, nn.utils,
checkpointing and linalg import as in PyTorch, and their objects behave as the engine's do."""

from __future__ import annotations

import pytest

from tensorscope.session import Session
from tensorscope.trace import step_record


def run(source: str) -> Session:
    session = Session()
    session.run(source)
    return session


def outputs(session: Session) -> list[str]:
    return [s.snapshot.output for s in session.steps if s.snapshot.output]


def errors(session: Session) -> list[tuple[str, str]]:
    return [(s.snapshot.error.type, s.snapshot.error.message) for s in session.steps if s.snapshot.error is not None]


@pytest.mark.parametrize("statement", [
    "import torch.utils.data",
    "from torch.utils.data import DataLoader, Dataset, TensorDataset, random_split",
    "from torch.utils import data",
    "import torch.optim.lr_scheduler as lr_scheduler",
    "from torch.optim.lr_scheduler import StepLR, CosineAnnealingLR, OneCycleLR, ReduceLROnPlateau",
    "from torch.nn.utils import clip_grad_norm_, parameters_to_vector",
    "from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence",
    "from torch.utils.checkpoint import checkpoint, checkpoint_sequential",
    "import torch.linalg",
])
def test_the_wider_api_imports(statement: str) -> None:
    assert errors(run("import torch\n" + statement)) == []


def test_a_dataset_subclass_batches_through_a_dataloader() -> None:
    session = run(
        "import torch\nfrom torch.utils.data import Dataset, DataLoader\n"
        "class Squares(Dataset):\n"
        "    def __len__(self):\n        return 5\n"
        "    def __getitem__(self, i):\n        return torch.tensor(float(i * i)), i\n"
        "_ = torch.manual_seed(0)\n"
        "for x, y in DataLoader(Squares(), batch_size=2, shuffle=True):\n    print(x.tolist(), y.tolist())\n")
    assert errors(session) == []
    assert outputs(session) == ["[1.0, 16.0] [1, 4]\n[4.0, 9.0] [2, 3]\n[0.0] [0]"]  # as torch draws them


def test_inference_tensors_have_no_version_in_the_trace() -> None:
    session = run("import torch\nwith torch.inference_mode():\n    b = torch.ones(2)\na = torch.ones(2)\n")
    objects = step_record(session.last)["objects"]
    assert objects["b"]["version"] is None and objects["a"]["version"] == 0


def test_saving_to_a_path_is_refused() -> None:
    session = run("import torch\ntorch.save(torch.ones(2), 'weights.pt')\n")
    assert errors(session) == [("RuntimeError", "torch.save: this engine saves and loads only file-like objects "
                                                "such as io.BytesIO, never files")]
