// The official MCP Python SDK (the one Hermes Agent uses) as a second real host, where a Python with
// the `mcp` package is at hand: TINYAGENT_PYTHON (which .ci/run sets when pip can install it), or
// python3. Tests that need it are skipped, and say so, where there is none.

/** A Python with the official `mcp` SDK, or undefined. */
export function pythonWithMcp(): string | undefined {
  for (const python of [Deno.env.get("TINYAGENT_PYTHON"), "python3"]) {
    if (!python) continue;
    try {
      const { success } = new Deno.Command(python, {
        args: ["-c", "import mcp"],
        stdout: "null",
        stderr: "null",
      })
        .outputSync();
      if (success) return python;
    } catch {
      // not there
    }
  }
  return undefined;
}
