"""The memory budget under an address-space limit (ulimit -v, as batch systems set it): tilelife.load
and stepping work, the default budget being half of the limit (issue 19: bad_alloc before, the
default engine reserving four times a budget of half the RAM)."""
import json
import os
import subprocess
import sys
import textwrap

from conftest import PATTERNS

CHILD = textwrap.dedent("""
    import resource, sys
    limit = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import tilelife
    board = tilelife.load(sys.argv[2])
    board.step(1000)
    print(board.population, flush=True)
""")


def test_load_and_step_under_an_address_space_limit(tmp_path):
    gun = os.path.join(PATTERNS, "gosper-glider-gun.rle")
    for limit in (16_000_000 * 1024, 4_000_000 * 1024):
        r = subprocess.run([sys.executable, "-c", CHILD, str(limit), gun], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == "213"  # the gun at generation 1000, as the CLI gives
