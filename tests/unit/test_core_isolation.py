import subprocess
import sys


def test_core_does_not_import_textual() -> None:
    code = (
        "import pkgutil, importlib, sys, tui_chat.core as core\n"
        "for info in pkgutil.iter_modules(core.__path__):\n"
        "    importlib.import_module(f'tui_chat.core.{info.name}')\n"
        "import tui_chat.cli\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(len(sys.modules)); assert not bad, bad\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stderr
