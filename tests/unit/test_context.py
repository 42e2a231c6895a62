"""Token estimates by script, calibration on the provider's counts, and the plan of a request
against the model's window."""

from __future__ import annotations

import pytest

from tests.fakeprovider import fake_tokens
from tui_chat.core.calibration import MESSAGE_OVERHEAD, REQUEST_OVERHEAD, Calibration
from tui_chat.core.context import (
    MIN_REPLY,
    ContextMeter,
    ContextUse,
    context_text,
    in_context,
    short_tokens,
)
from tui_chat.core.models import Message, MessageStatus, Role, Usage
from tui_chat.core.tokens import CHARS_PER_TOKEN, estimate_tokens, script_counts

HINDI = "भारत एक विशाल देश है जिसकी संस्कृति बहुत पुरानी और समृद्ध है। "
ENGLISH = "India is a vast country whose culture is very old and rich. "
CHINESE = "中国是一个历史悠久的国家，文化丰富多彩。"


def test_scripts_are_counted_apart() -> None:
    counts = script_counts("Hi नमस्ते 你好 Привет 42!\n\n    x")
    assert counts["latin"] == 3 and counts["cyrillic"] == 6 and counts["cjk"] == 2
    assert counts["indic"] == 6 and counts["digit"] == 2 and counts["punct"] == 1
    assert counts["space"] == 1  # the newlines and the indentation: one run
    assert estimate_tokens("") == 0 and estimate_tokens("a") == 1


def test_non_latin_text_is_not_estimated_at_englishs_ratio() -> None:
    # Per character, Hindi and Chinese cost far more tokens than English with most tokenizers
    # (DeepSeek's and Qwen's: tests/fixtures/token_samples.json; test_tokens.py holds the
    # estimate to their counts script by script).
    english, hindi, chinese = (estimate_tokens(t * 10) / len(t * 10)
                               for t in (ENGLISH, HINDI, CHINESE))
    assert hindi > 2 * english and chinese > 2 * english
    assert estimate_tokens(ENGLISH * 10) == pytest.approx(len(ENGLISH * 10) / 4.5, rel=0.2)


def calibrated_on(texts: list[str], model: str = "m") -> Calibration:
    calibration = Calibration()
    for text in texts:
        calibration.learn_request(model, [text], REQUEST_OVERHEAD + MESSAGE_OVERHEAD
                                  + fake_tokens(text))
    return calibration


def test_calibration_learns_each_scripts_ratio_from_reported_counts() -> None:
    hindi = HINDI * 20
    calibration = calibrated_on([hindi, HINDI * 7])
    # The fake provider counts a Devanagari character as a whole token: the default said 2/3.
    assert calibration.estimate("m", hindi) == pytest.approx(fake_tokens(hindi), rel=0.05)
    assert abs(estimate_tokens(hindi) - fake_tokens(hindi)) > 0.2 * fake_tokens(hindi)
    english = ENGLISH * 20  # no English sample: the default still holds
    assert round(calibration.estimate("m", english)) == estimate_tokens(english)
    assert round(calibration.estimate("other-model", hindi)) == estimate_tokens(hindi)


def test_a_sample_of_mixed_text_refines_the_script_that_dominates_it() -> None:
    calibration = calibrated_on([ENGLISH * 20])
    mixed = ENGLISH * 2 + HINDI * 12
    calibration.learn_request("m", [mixed], REQUEST_OVERHEAD + MESSAGE_OVERHEAD
                              + fake_tokens(mixed))
    assert calibration.estimate("m", HINDI * 30) == pytest.approx(fake_tokens(HINDI * 30),
                                                                  rel=0.1)


def test_tiny_samples_and_replies_teach_nothing_odd() -> None:
    calibration = Calibration()
    calibration.learn_request("m", ["hi"], 9)
    calibration.learn_reply("m", "", 50)
    assert calibration.factors("m") == {}
    calibration.learn_reply("m", CHINESE * 10, 10_000)  # absurd: clamped, not believed whole
    assert calibration.factors("m")["cjk"] == 10.0


def message(role: Role, content: str, **fields: object) -> Message:
    return Message(conversation_id="c", role=role, content=content, **fields)  # type: ignore[arg-type]


def test_in_context_leaves_out_failed_replies_and_what_comes_before_context_from() -> None:
    path = [message(Role.USER, "one"), message(Role.ASSISTANT, "1"),
            message(Role.USER, "two"),
            message(Role.ASSISTANT, "", status=MessageStatus.ERROR, error="x"),
            message(Role.USER, "two"), message(Role.ASSISTANT, "2")]
    assert [m.content for m in in_context(path)] == ["one", "1", "two", "2"]
    assert [m.content for m in in_context(path, path[2].id)] == ["two", "2"]
    assert [m.content for m in in_context(path, "not-on-the-path")] == ["one", "1", "two", "2"]


def test_the_figure_is_anchored_on_the_last_reported_prompt() -> None:
    meter = ContextMeter()
    path = [message(Role.USER, "question " * 50),
            message(Role.ASSISTANT, "answer " * 30, model="m",
                    usage=Usage(prompt_tokens=1000, completion_tokens=40, total_tokens=1040))]
    use = meter.measure(path, model="m", system_prompt="be kind", draft="next one",
                        window=8192)
    assert use.counted == 1000 + 40 + MESSAGE_OVERHEAD  # the provider's, not an estimate
    assert use.estimated == pytest.approx(estimate_tokens("next one") + MESSAGE_OVERHEAD, abs=1)
    other = meter.measure(path, model="other", system_prompt="be kind", draft="", window=None)
    assert other.counted == 0 and other.estimated > 50  # another model's count: estimated


def test_plan_warns_near_the_window_clamps_max_tokens_and_refuses_what_cannot_fit() -> None:
    meter = ContextMeter()
    path = [message(Role.USER, "x"), message(Role.ASSISTANT, "y", model="m",
                                             usage=Usage(prompt_tokens=5000))]
    use = ContextUse(counted=5000, estimated=0, window=8192)
    fits = meter.plan(path, use, 1024, model="m")
    assert (fits.state, fits.max_tokens, fits.clamped) == ("fits", 1024, False)
    near = meter.plan(path, ContextUse(7000, 0, 8192), 8192, model="m")
    assert near.state == "near" and near.clamped and near.max_tokens is not None
    assert near.max_tokens < 8192 - 7000
    assert meter.plan(path, ContextUse(7000, 0, 8192), None, model="m").max_tokens is None
    over = meter.plan(path, ContextUse(8192 - MIN_REPLY, 0, 8192), None, model="m")
    assert over.state == "over"
    unknown = meter.plan(path, ContextUse(10**6, 0, None), 4096, model="m")
    assert (unknown.state, unknown.max_tokens) == ("fits", 4096)


def test_an_overflow_names_the_oldest_turns_to_leave_out() -> None:
    meter = ContextMeter()
    turns = []
    for index in range(6):
        turns += [message(Role.USER, f"question {index} " + "words " * 200),
                  message(Role.ASSISTANT, f"answer {index} " + "words " * 200)]
    turns.append(message(Role.USER, "the new question"))
    use = meter.measure(turns, model="m", system_prompt=None, draft="", window=2048)
    plan = meter.plan(turns, use, None, model="m")
    assert plan.state == "over" and plan.keep_from is not None
    kept = turns[plan.left_out:]
    assert kept[0].id == plan.keep_from and kept[0].role is Role.USER
    again = meter.measure(kept, model="m", system_prompt=None, draft="", window=2048)
    assert meter.plan(kept, again, None, model="m").state != "over"
    alone = [message(Role.USER, "words " * 5000)]
    huge = meter.measure(alone, model="m", system_prompt=None, draft="", window=2048)
    assert meter.plan(alone, huge, None, model="m").keep_from is None


def test_figures_read_as_the_status_line_shows_them() -> None:
    assert [short_tokens(n) for n in (950, 1500, 38_400, 131_072, 1_048_576)] == [
        "950", "1.5k", "38k", "131k", "1.0M"]
    assert context_text(ContextUse(38_000, 400.2, 131_072)) == "38k / 131k ctx"
    assert context_text(ContextUse(0, 950, None)) == "950 ctx"
    assert set(CHARS_PER_TOKEN) >= {"latin", "indic", "cjk"}


def test_costs_read_with_their_unit_and_two_significant_digits() -> None:
    from tui_chat.core.costs import cost_text

    assert [cost_text(v) for v in (0, 0.000024, 0.0012, 0.042, 1.349, 1e-9)] == [
        "0 USD", "0.000024 USD", "0.0012 USD", "0.0420 USD", "1.35 USD", "<0.00000001 USD"]


def test_a_small_window_warns_from_80_percent_as_any_other() -> None:
    """A 600-token window at 48 % and 66 % is not near full (the reply's minimum is a fifth of
    a small window, not 256 tokens: that made the warning show at 48 %); from 80 % it is."""
    meter = ContextMeter()
    path = [message(Role.USER, "q"), message(Role.ASSISTANT, "a")]
    states = {share: meter.plan(path, ContextUse(0, 600 * share, 600), None, model="m").state
              for share in (0.48, 0.66, 0.8, 0.9)}
    assert states[0.48] == states[0.66] == "fits"
    assert states[0.8] != "fits" and states[0.9] != "fits"
    large = meter.plan(path, ContextUse(8192 - MIN_REPLY, 0, 8192), None, model="m")
    assert large.state == "over"  # a large window still keeps MIN_REPLY for the reply
