// What an MCP bundle's host does with a manifest before it starts the server, as the bundle
// format specifies it (MANIFEST.md of the MCPB project) and its reference implementation behaves:
// the settings' defaults applied, then the person's values; `${user_config.NAME}` replaced wherever
// it stands in `command`, `args` and `env` (a boolean as "true" or "false", a number as its decimal
// text); a setting with neither value nor default left as the literal `${user_config.NAME}`; a
// required setting without a value stops the start; `${__dirname}` is the unpacked bundle's folder.
// Written here from that description, to start a bundle exactly as Claude Desktop would.

type Value = string | number | boolean;

interface Setting {
  type: string;
  required?: boolean;
  default?: Value;
}

export interface McpConfig {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The command, arguments and environment a host starts, or why it would not start the server. */
export function hostLaunch(
  manifest: Record<string, unknown>,
  values: Record<string, Value>,
  dirname: string,
): McpConfig {
  const settings = (manifest.user_config ?? {}) as Record<string, Setting>;
  const given: Record<string, Value> = {};
  for (const [name, setting] of Object.entries(settings)) {
    if (setting.default !== undefined) given[name] = setting.default;
  }
  for (const [name, value] of Object.entries(values)) {
    if (!Object.hasOwn(settings, name)) throw new Error(`the manifest has no setting ${name}`);
    given[name] = value;
  }
  for (const [name, setting] of Object.entries(settings)) {
    if (setting.required && given[name] === undefined) {
      throw new Error(`the required setting ${name} has no value`);
    }
  }
  const replace = (text: string) =>
    text
      .replaceAll("${__dirname}", dirname)
      .replace(/\$\{user_config\.([^}]+)\}/g, (whole, name: string) =>
        given[name] === undefined ? whole : String(given[name]));
  const server = manifest.server as {
    mcp_config: { command: string; args?: string[]; env?: Record<string, string> };
  };
  const config = server.mcp_config;
  return {
    command: replace(config.command),
    args: (config.args ?? []).map(replace),
    env: Object.fromEntries(Object.entries(config.env ?? {}).map(([key, value]) => [key, replace(value)])),
  };
}
