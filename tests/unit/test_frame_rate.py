"""The app draws up to ui.FRAME_RATE frames a second (a key typed right after a frame waits
for the next one), unless the user's TEXTUAL_FPS says otherwise."""

import os
import subprocess
import sys

# What the app's command does (commands/app.run_app), then what Textual made of it.
_RATE = ("from tui_chat.ui import app\n"
         "import textual.constants, textual.screen\n"
         "print(textual.constants.MAX_FPS, round(1 / textual.screen.UPDATE_PERIOD))\n")


def _rate(**env: str) -> str:
    environment = {key: value for key, value in os.environ.items() if key != "TEXTUAL_FPS"}
    result = subprocess.run([sys.executable, "-c", _RATE], capture_output=True, text=True,
                            env=environment | env, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_app_draws_up_to_its_frame_rate() -> None:
    from tui_chat.ui import FRAME_RATE

    assert FRAME_RATE > 60  # Textual's own
    assert _rate() == f"{FRAME_RATE} {FRAME_RATE}"


def test_textual_fps_set_by_the_user_wins() -> None:
    assert _rate(TEXTUAL_FPS="30") == "30 30"
