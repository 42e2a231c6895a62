// How many cells xterm.js gives Indic words under its Unicode 11 widths (what textual-serve's
// page uses) and under the grapheme addon, to compare with the app's own widths
// (tui_chat/ui/cells.py). A measurement behind tui_chat/commands/serve_page.py, not a test:
//   mkdir /tmp/xt && cd /tmp/xt && npm install @xterm/headless @xterm/addon-unicode11 \
//     @xterm/addon-unicode-graphemes && NODE_PATH=/tmp/xt/node_modules node THIS_FILE
//   python -c "from tui_chat.ui import cells; cells.install(); from rich.cells import cell_len;
//     print([cell_len(w) for w in 'हिन्दी में परीक्षण राजधानी दिल्ली தமிழ்நாட்டின் தலைநகரம் চেন্নাই'.split()])"
// Measured (xterm 6.0.0, addons 0.9.0 / 0.4.0; tui-chat's default cell model):
//   word        हिन्दी में परीक्षण राजधानी दिल्ली தமிழ்நாட்டின் தலைநகரம் চেন্নাই
//   app            5    1      6       7      5          10         7      6
//   Unicode 11     5    1      6       7      5          10         7      6
//   graphemes      3    1      5       4      3           7         6      4
"use strict";
const { Terminal } = require("@xterm/headless");
const { UnicodeGraphemesAddon } = require("@xterm/addon-unicode-graphemes");
const { Unicode11Addon } = require("@xterm/addon-unicode11");

const WORDS = "हिन्दी में परीक्षण राजधानी दिल्ली தமிழ்நாட்டின் தலைநகரம் চেন্নাই".split(" ");

async function widths(addon) {
  const terminal = new Terminal({ allowProposedApi: true, cols: 80, rows: 5 });
  terminal.loadAddon(addon);
  if (addon instanceof Unicode11Addon) terminal.unicode.activeVersion = "11";
  const cells = [];
  for (const word of WORDS) {
    await new Promise((done) => terminal.write("\r\x1b[2K" + word, done));
    cells.push(terminal.buffer.active.cursorX);
  }
  return terminal.unicode.activeVersion + ": " + cells.join(" ");
}

(async () => {
  console.log(await widths(new Unicode11Addon()));
  console.log(await widths(new UnicodeGraphemesAddon()));
})();
