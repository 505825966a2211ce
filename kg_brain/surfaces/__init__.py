"""What clients reach: the MCP tools, resources and transports, the shared service, its relay
and guard, the OpenCode plugin, client wiring, scheduled jobs and the command line."""
