"""Tools over MCP (the Model Context Protocol): servers declared in config.toml, started on
first use, their tools offered to the model and their results sent back.

`config` (the `[mcp]` section; no SDK) is what the rest of the app imports at start-up. The
official SDK (`mcp`, with httpx2, starlette, jsonschema: about half a second to import) is
imported only by `manager`, which nothing imports until a server is first needed.
"""
