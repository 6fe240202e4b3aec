// Claude Code, the real CLI, as the tests run it: through npx at a pinned version, in a fresh HOME,
// with nothing sent anywhere but the npm registry. Shared by the docs' run blocks and
// `tinyagent config claude-code`'s line.

/** The Claude Code the tests run (`claude mcp add` and `claude mcp list`). */
export const CLAUDE_CODE = "@anthropic-ai/claude-code@2.1.332";

/** Set where the npm registry cannot be reached: the steps that need Claude Code are left out. */
export const OFFLINE = Deno.env.get("TINYAGENT_OFFLINE") === "1";

/** Writes a `claude` into `dir` that runs the pinned Claude Code through npx; returns `dir`. */
export async function claudeShim(dir: string): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(`${dir}/claude`, `#!/bin/sh\nexec npx -y ${CLAUDE_CODE} "$@"\n`, { mode: 0o755 });
  return dir;
}

/** Where this suite's Deno keeps its cache, so a child finds the packages already there. */
export async function denoDir(): Promise<string> {
  const { stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
  })
    .output();
  return JSON.parse(new TextDecoder().decode(stdout)).denoDir;
}

/** The environment Claude Code runs in: npm's cache as this machine has it, no update, no telemetry. */
export function claudeEnv(): Record<string, string> {
  return {
    npm_config_cache: Deno.env.get("npm_config_cache") ?? `${Deno.env.get("HOME")}/.npm`,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    NO_COLOR: "1",
  };
}
