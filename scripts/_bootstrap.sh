# Sourced by scripts/demo and scripts/test: make .venv in the repo and install the project at
# the versions in requirements.lock (pyproject.toml has the compatible ranges users get).
# Idempotent and fast on a second run: reinstalls only when pyproject.toml or the lock changes.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
EXTRAS="${1:-}"
PY="${PYTHON:-python3}"
UV_VERSION=0.13.9
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "dwqa: Python >= 3.11 is required (found: $("$PY" --version 2>&1))" >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv" >&2
  "$PY" -m venv .venv
fi
STAMP=".venv/.dwqa-installed${EXTRAS:+-$EXTRAS}"
WANT="$(cat pyproject.toml requirements.lock | sha256sum | cut -c1-16)"
if [ "$(cat "$STAMP" 2>/dev/null || true)" != "$WANT" ]; then
  echo "==> installing dwqa-graph${EXTRAS:+[$EXTRAS]} into .venv" >&2
  # uv installs the locked versions from its cache in seconds where pip takes half a minute
  # (a demo's or CI run's first step); uv itself comes from PyPI like everything else. It
  # compiles the bytecode as pip does: where PYTHONDONTWRITEBYTECODE is set, every one of a
  # script's dozens of Python processes would otherwise compile its imports from source.
  # The installers' chatter goes to a log, shown only when the install fails.
  if ! { .venv/bin/python -m pip install -q --disable-pip-version-check "uv==$UV_VERSION" &&
         .venv/bin/uv pip install -q --compile-bytecode --python .venv/bin/python \
           -c requirements.lock -e ".${EXTRAS:+[$EXTRAS]}"; } > .venv/install.log 2>&1; then
    cat .venv/install.log >&2
    echo "dwqa: installing the project failed (log above, also in .venv/install.log)" >&2
    exit 1
  fi
  echo "$WANT" > "$STAMP"
fi
# The project's own modules too (an editable install leaves them to the import system, which
# writes no bytecode under PYTHONDONTWRITEBYTECODE); a no-op when they are current.
.venv/bin/python -m compileall -q dwqa_graph
export PATH="$ROOT/.venv/bin:$PATH"
