/** Settings → MCP: the place the MCP servers' page takes once the server has an MCP API. */
export function McpSettingsPage() {
  return (
    <main class="page settings-page">
      <nav class="settings-tabs" aria-label="Settings">
        <a href="/settings/tools">Tools</a>
        <a href="/settings/mcp" aria-current="page">
          MCP servers
        </a>
      </nav>
      <h2>MCP servers</h2>
      <p class="muted" data-testid="mcp-placeholder">
        This server has no MCP API yet. When it does, its servers are managed here: status, tool
        count, last error, test, enable and disable.
      </p>
    </main>
  );
}
