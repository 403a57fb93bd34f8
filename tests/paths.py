"""Where the tests find their data: the checkout's examples and ../shared/data."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = REPO_ROOT / "examples"
DATA = Path(__file__).parent / "data"
# Real data nobody here wrote (HotpotQA sample, real web pages): ../shared beside the clone,
# as CI has it, or DWQA_SHARED_DATA. Missing data fails the tests that need it, loudly.
SHARED = Path(os.environ.get("DWQA_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))
HOTPOT = SHARED / "hotpotqa" / "dev-distractor-sample.json"
