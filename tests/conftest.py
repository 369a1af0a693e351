import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture()
def data_copy(tmp_path: Path) -> Path:
    """A copy of the content data folder, to break in a test."""
    from evenstar_env.content import DATA_DIR

    dst = tmp_path / "data"
    shutil.copytree(DATA_DIR, dst)
    return dst
