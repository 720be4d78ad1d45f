"""One JSON vocabulary (docs/json.md): every --json document of the CLI, its --json errors and Python's
describe(), engines() and devices() validate against docs/tilelife.schema.json; keys are snake_case,
absent values null (never -1), and Python's dicts are the CLI's objects."""
import copy
import json
import re

import pytest

import tilelife
from conftest import PATTERNS, SOURCE_DIR, engine_names, run_cli

jsonschema = pytest.importorskip("jsonschema", reason="python3-jsonschema is not installed (make deps installs it)")

SCHEMA = json.loads((SOURCE_DIR / "docs" / "tilelife.schema.json").read_text())
GLIDER = PATTERNS / "glider.rle"
KEY = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)*$")


def validator(definition=None):
    """The schema's validator, for a whole document or for one of its $defs."""
    schema = copy.deepcopy(SCHEMA)
    if definition:
        schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


DOCUMENT = validator()


def check_vocabulary(value, path="$"):
    """Keys snake_case (except --param names, which are the engines' own), no -1 standing for "none"."""
    if isinstance(value, dict):
        for k, v in value.items():
            if not path.endswith(".params"):
                assert KEY.match(k), f"{path}: key {k!r} is not snake_case"
            check_vocabulary(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            check_vocabulary(v, f"{path}[{i}]")
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
        assert path.rsplit(".", 1)[-1] in ("x", "y"), f"{path} = {value}: a negative number (absent values are null)"


def check_document(text, command, definition=None):
    """One line, one object, valid against the schema (and its definition `definition`_document,
    which gives the precise reason where the whole schema's oneOf only says that none matched)."""
    assert text.endswith("\n") and text.count("\n") == 1, text
    doc = json.loads(text)
    errors = list(validator(f"{definition or command}_document").iter_errors(doc)) or list(DOCUMENT.iter_errors(doc))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message[:300]}" for e in errors)
    assert doc["tilelife"] == tilelife.__version__ and doc["command"] == command
    check_vocabulary(doc)
    return doc


def run_json(*args):
    p = run_cli(*args, "--json")
    assert p.stderr == "", p.stderr
    return check_document(p.stdout, args[0])


@pytest.mark.parametrize("engine", engine_names())
def test_run_documents(cli, tmp_path, engine):
    if engine in engine_names(bounded=True):
        board = ["--topology", "torus", "--size", "64x48"]
    else:  # an engine of the unbounded plane alone
        board = []
    doc = run_json("run", GLIDER, "--kernel", engine, "--gens", 12, "--log-every", 4, "-o", tmp_path / "out.rle", *board)
    assert doc["engine"]["name"] == engine and doc["generation"] == 12 and doc["population"] == 5
    assert [p["generation"] for p in doc["log"]] == [0, 4, 8, 12] and doc["output"] == str(tmp_path / "out.rle")


def test_run_null_where_nothing_applies(cli):
    # No --log-every, -o, --gif, --checkpoint; no generations run, so no rate.
    doc = run_json("run", GLIDER, "--gens", 0)
    assert doc["log"] is None and doc["output"] is None and doc["gif"] is None and doc["checkpoint"] is None
    assert doc["cell_updates_per_second"] is None and doc["engine"]["device"] is None


def test_auto_before_a_switch_is_null(cli):
    # cpu:auto reports the generation it switched engines at: null, not -1, when it did not switch.
    doc = run_json("run", GLIDER, "--kernel", "auto", "--gens", 100)
    props = doc["engine"]["properties"]
    assert props["switched_at_generation"] is None and props["running"] == "cpu:hashlife"
    assert props["cpu_hashlife_memory_budget_bytes"] > 0


def test_info_documents(cli, tmp_path):
    for source in [GLIDER, "random:40x30:0.5:7"]:
        run_json("info", source)
    mc = tmp_path / "glider.mc"
    run_cli("run", GLIDER, "--kernel", "hashlife", "--gens", 1000, "-o", mc)
    assert run_json("info", mc)["pattern"]["format"] == "macrocell"
    empty = tmp_path / "empty.rle"
    empty.write_text("x = 0, y = 0\n!\n")
    assert run_json("info", empty)["pattern"]["bounding_box"] is None


def test_bench_document(cli):
    cpu = [e for e in engine_names(bounded=True) if e.startswith("cpu:")]
    doc = run_json("bench", "--size", "64x64", "--gens", 2, "--warmup", 1, "--kernel", ",".join(cpu))
    assert [r["engine"]["name"] for r in doc["results"]] == cpu
    assert doc["autotune"] is None and doc["seed_setup"] is None and doc["bytes_per_cell_update"] == 2


def opencl_devices_or_skip():
    try:
        return tilelife.devices("opencl")
    except (tilelife.Error, RuntimeError) as e:  # no backend in this build, or no device on this machine
        pytest.skip(f"no OpenCL device: {e}")


def test_bench_autotune_document(cli):
    opencl_devices_or_skip()
    doc = run_json("bench", "--size", "64x64", "--gens", 2, "--warmup", 1, "--backend", "opencl", "--kernel", "bitpacked",
                   "--autotune")
    assert doc["autotune"] and doc["autotune"][0]["engine"] == "opencl:bitpacked"


def test_bench_with_a_failed_configuration(cli):
    # A configuration the device refuses: its numbers are null, its error says why; the bench goes on.
    opencl_devices_or_skip()
    doc = run_json("bench", "--size", "64x64", "--gens", 2, "--warmup", 1, "--kernel", "cpu:reference,opencl:naive",
                   "--wg", "4096x4")
    ok, failed = doc["results"]
    assert ok["error"] is None and ok["seconds"] > 0
    assert failed["error"] and failed["seconds"] is None and failed["population"] is None and failed["ratio"] is None


def test_engines_document(cli):
    doc = run_json("engines")
    assert [e["name"] for e in doc["engines"]] == engine_names()
    # Python's engines() is the same list of the same objects.
    assert doc["engines"] == tilelife.engines()


def test_devices_document(cli):
    p = run_cli("devices", "--json", check=False)
    if p.returncode == 1:
        # No backend found a device: an error document (and the reason to skip).
        error = check_document(p.stderr, "devices", "error")
        pytest.skip(f"no device: {error['error']['message']}")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    doc = check_document(p.stdout, "devices")
    for backend in doc["backends"]:
        if backend["devices"]:
            assert backend["devices"] == tilelife.devices(backend["name"])


ERRORS = [
    (2, "run", ["run", "no-such-file.rle", "--gens", 1]),  # bad input
    (2, "run", ["run", GLIDER, "--gens", "ten"]),  # a bad value
    (2, "run", ["run", GLIDER, "--nonesuch"]),  # an unknown option (CLI11)
    (2, None, ["runn", GLIDER]),  # an unknown subcommand
    (2, "info", ["info", PATTERNS / "nonesuch.mc"]),
    (2, "bench", ["bench", "--size", "0x0"]),
    (1, "run", ["run", PATTERNS / "gosper-glider-gun.rle", "--kernel", "hashlife", "--gens", "2^40", "--max-memory", "64K"]),  # runtime failure
]


@pytest.mark.parametrize("code,command,args", ERRORS, ids=[" ".join(map(str, e[2])) for e in ERRORS])
def test_errors_are_json_on_stderr(cli, code, command, args):
    p = run_cli(*args, "--json", check=False)
    assert p.returncode == code and p.stdout == "", (p.returncode, p.stdout, p.stderr)
    doc = check_document(p.stderr, command, "error")
    assert doc["error"]["exit_code"] == code
    # The same reason as the text line, without its "tilelife: " prefix.
    text = run_cli(*args, check=False)
    assert text.returncode == code and text.stderr == f"tilelife: {doc['error']['message']}\n"


def test_python_describe_is_the_cli_engine_object(cli):
    describe = validator("python_engine")
    for engine in engine_names():
        if engine in engine_names(bounded=True):
            b = tilelife.Board(topology="torus", size=(64, 48), engine=engine)
        else:
            b = tilelife.Board(engine=engine)
        d = b.describe()
        errors = list(describe.iter_errors(d))
        assert not errors, f"{engine}: " + "\n".join(f"{list(e.absolute_path)}: {e.message[:300]}" for e in errors)
        check_vocabulary(d)
    device = validator("device")
    for dev in opencl_devices_or_skip():
        assert not list(device.iter_errors(dev)), dev


def test_python_engines_validate():
    info = validator("engine_info")
    for e in tilelife.engines():
        assert not list(info.iter_errors(e)), e
        check_vocabulary(e)
