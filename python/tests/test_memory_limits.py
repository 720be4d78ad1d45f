"""The memory budget under an address-space limit (ulimit -v, as batch systems set it): tilelife.load
and stepping work, the default budget being half of the limit (issue 19: bad_alloc before, the
default engine reserving four times a budget of half the RAM)."""
import json
import os
import shlex
import subprocess
import sys
import textwrap

from conftest import CLI, PATTERNS

CHILD = textwrap.dedent("""
    import resource, sys
    limit = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import tilelife
    board = tilelife.load(sys.argv[2])
    board.step(1000)
    print(board.population, flush=True)
    print(next(v for k, v in board.describe()["properties"].items() if k.endswith("memory_budget_bytes")))
""")


def test_load_and_step_under_an_address_space_limit(tmp_path):
    gun = os.path.join(PATTERNS, "gosper-glider-gun.rle")
    for limit in (16_000_000 * 1024, 4_000_000 * 1024):
        r = subprocess.run([sys.executable, "-c", CHILD, str(limit), gun], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        population, budget = r.stdout.split()
        assert population == "213"  # the gun at generation 1000, as the CLI gives
        # The default budget is the board layer's, as for the CLI: half of the limit less the
        # stacks of a thread a core but one (the engine may start them).
        cli = subprocess.run(["bash", "-c", f"ulimit -v {limit // 1024} && exec {shlex.quote(str(CLI))} run "
                              f"{shlex.quote(gun)} -g 10 --json"], capture_output=True, text=True, timeout=120)
        assert cli.returncode == 0, cli.stderr
        properties = json.loads(cli.stdout)["engine"]["properties"]  # cpu:auto's, its HashLife's prefixed
        assert int(budget) == next(v for k, v in properties.items() if k.endswith("memory_budget_bytes"))
