// tui-chat serve: Indic text drawn shaped, one piece per word, in the cells it was given.
//
// xterm.js draws each cell on its own, so a vowel sign that has a cell of its own (`ी` in
// `परीक्षण`; the app and xterm.js give it one, as glibc and tmux do) was drawn alone, on the
// dotted circle a font puts under a mark with nothing to attach to, and conjuncts fell apart.
// Two hooks (tui_chat/commands/serve_page.py adds their calls to textual-serve's script):
// - `tuiChatTerminal(terminal)`, once the terminal is open, registers a character joiner
//   (xterm.js's proposed API, as its ligatures addon uses): each run of Indic letters goes to
//   the renderer as one string, which the browser shapes as it shapes any text.
// - `tuiChatFillText(...)` draws every glyph into the renderer's glyph atlas. A run of Indic
//   letters (a joined word, or a cell of its own) is fitted to its cells: a run wider than
//   them (Tamil letters are wider than a cell of the terminal's font) is condensed to fit,
//   the browser's own way (fillText's maxWidth), rather than drawn over the next word; a
//   narrower one is centred in them, so that the spaces between words stay even.
// The cells are the ones the app laid out, so nothing else moves.
(function () {
  "use strict";
  // Devanagari to Sinhala, Tibetan, Myanmar, Khmer, Vedic Extensions, Devanagari Extended,
  // and ZWNJ / ZWJ (which choose the form of a conjunct).
  const LETTERS = "\u0900-\u0DFF\u0F00-\u0FFF\u1000-\u109F\u1780-\u17FF\u1CD0-\u1CFF" +
    "\uA8E0-\uA8FF\u200C\u200D";
  const RUN = new RegExp("[" + LETTERS + "]{2,}", "g");
  const WHOLE_RUN = new RegExp("^[" + LETTERS + "]+$");  // a letter alone too

  function indicRuns(text) {
    const ranges = [];
    for (const match of text.matchAll(RUN)) {
      ranges.push([match.index, match.index + match[0].length]);
    }
    return ranges;
  }

  window.tuiChatFillText = function (context, text, x, y, cellsWidth) {
    if (!WHOLE_RUN.test(text)) {
      context.fillText(text, x, y);
      return;
    }
    const width = context.measureText(text).width;
    if (width > cellsWidth) {
      context.fillText(text, x, y, cellsWidth);
    } else {
      context.fillText(text, x + Math.floor((cellsWidth - width) / 2), y);
    }
  };

  window.tuiChatTerminal = function (terminal) {
    // The joiner's id and the terminal, for the browser test (tests/serve/test_serve_indic.py)
    // to read the cells and to draw the page without the joiner too.
    window.tuiChatJoiner = terminal.registerCharacterJoiner(indicRuns);
    window.tuiChatXterm = terminal;
  };
})();
