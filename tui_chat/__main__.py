from tui_chat.cli import main

raise SystemExit(main())
