"""The package's shape: layers that import one way (``attention_research.LAYERS``), no
import cycle (function-level imports included), and no task named where the registry
should be asked instead."""

import ast
import re
from pathlib import Path

from attention_research import LAYERS
from attention_research.tasks import TASKS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "attention_research"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere in its code. ``from a import b``
    counts as importing ``a.b`` when that is a module, else ``a``. The implicit import
    of a parent package that Python performs first is not an edge: a package whose
    ``__init__`` imports its submodules would otherwise always be a cycle."""
    graph = {}
    for path in PACKAGE.rglob("*.py"):
        edges = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                edges.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    edges.add(full if _is_module(full) else node.module)
        graph[_module_name(path)] = {e for e in edges if e.split(".")[0] == PACKAGE.name}
    return graph


def find_cycle(graph):
    """One import cycle as a list of modules, or None."""
    state, stack = {}, []

    def visit(module):
        state[module] = "open"
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        state[module] = "done"
        stack.pop()
        return None

    for module in sorted(graph):
        if module not in state and (cycle := visit(module)):
            return cycle
    return None


def test_the_package_has_no_import_cycle():
    graph = import_graph()
    assert "attention_research.training.loop" in graph  # the walk found the package
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph))


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def layer_of(module: str) -> int | None:
    """The index in ``LAYERS`` of a package module (None for the package itself)."""
    parts = module.split(".")
    if len(parts) == 1:
        return None
    return next(index for index, (_, members) in enumerate(LAYERS) if parts[1] in members)


def upward_imports(graph) -> set[tuple[str, str]]:
    """(importer, imported) wherever a module imports from a layer above its own."""
    return {(module, target) for module, targets in graph.items() for target in targets
            if layer_of(module) is not None and layer_of(target) is not None
            and layer_of(target) > layer_of(module)}


def test_every_module_belongs_to_a_layer():
    folders = {path.relative_to(PACKAGE).parts[0].removesuffix(".py")
               for path in PACKAGE.rglob("*.py")} - {"__init__"}
    placed = {member for _, members in LAYERS for member in members}
    assert folders == placed, (folders - placed, placed - folders)


def test_imports_run_one_way_between_layers():
    """Every import, inside a function too, reaches only its own layer or one below."""
    upward = sorted(upward_imports(import_graph()))
    assert not upward, "imports from a higher layer: " + ", ".join(f"{a} -> {b}"
                                                                   for a, b in upward)


def test_the_layer_check_sees_an_upward_import():
    graph = {"attention_research.models.rnn": {"attention_research.training.steps"},
             "attention_research.training.steps": {"attention_research.models.rnn"}}
    assert upward_imports(graph) == {("attention_research.models.rnn",
                                      "attention_research.training.steps")}


def test_training_config_checks_and_reports_name_no_task():
    """The generic modules name no task: every module of training/ but the corpus
    evaluation's (evaluation/corpus*.py, which reads the one corpus task's pipeline and
    metrics), the sweep machinery, and the reports' tables."""
    evaluation = PACKAGE / "training" / "evaluation"
    generic = [*(PACKAGE / "training").glob("*.py"),
               *(evaluation / f"{name}.py" for name in ("__init__", "ranges", "by_length")),
               *(PACKAGE / "running" / f"{name}.py" for name in ("sweep", "adopt", "preemption")),
               PACKAGE / "reports" / "tables.py"]
    assert {p.name for p in evaluation.glob("*.py")} - {p.name for p in generic} == {
        "corpus.py", "corpus_analysis.py"}
    pattern = re.compile(r"\b(" + "|".join(TASKS) + r")\b")
    found = [f"{path.name}:{number}: {line.strip()}" for path in generic
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if pattern.search(line)]
    assert not found, found


# A metric's name as a string: 'eval/…', 'train/…', 'time_s', a length range 'len1-25',
# a report's 'seq_acc/…', 'align_acc_any/…' or 'auc_…' column.
SPELLED_METRIC = re.compile(r"^(eval|train)/|^time_s$|(^|/)len\d+-\d+|^[a-z_]+_acc[a-z_]*/|^auc_")


def spelled_metric_names(path: Path) -> list[tuple[int, str]]:
    """(line, text) of the string literals (docstrings aside) and f-strings' first parts
    in ``path`` that spell a metric's name."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    found = {}  # an f-string's part is found from the f-string and on its own: once
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and node.values:
            node = node.values[0]
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docstrings and SPELLED_METRIC.search(node.value)):
            found[id(node)] = (node.lineno, node.value)
    return sorted(found.values())


def test_metric_names_are_built_in_one_module():
    """Issue 70: every metric's name is built by attention_research/metric_names.py, and
    evaluation, the reports, launch.py and the lab use it, never spelling one again."""
    lab = [p for p in (ROOT / "experiments").rglob("*.py") if "results" not in p.parts]
    paths = [p for p in (*PACKAGE.rglob("*.py"), ROOT / "launch.py", *lab)
             if p.name != "metric_names.py"]
    found = [f"{path.relative_to(ROOT)}:{line}: {text!r}" for path in sorted(paths)
             for line, text in spelled_metric_names(path)]
    assert not found, found


def test_the_metric_name_check_sees_a_spelled_name(tmp_path):
    spelled = tmp_path / "x.py"
    spelled.write_text('"""eval/seq_acc/len1-25 in a docstring is fine."""\n'
                       'KEY = "eval/seq_acc/len1-25"\nROW = f"seq_acc/len{1}-25"\n')
    assert spelled_metric_names(spelled) == [(2, "eval/seq_acc/len1-25"), (3, "seq_acc/len")]

