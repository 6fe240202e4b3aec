// The probe that runs inside the sandbox (see sandbox_probe.ts): it tries
// what the facade may do and what it must not, and prints what happened.

import type { FromWorker, ToWorker } from "../../lib/sandbox.ts";

const scope = self as unknown as {
  postMessage(message: FromWorker): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
};

/** "ok", or the error's class name (NotCapable when the sandbox refused). */
async function attempt(action: () => unknown): Promise<string> {
  try {
    await action();
    return "ok";
  } catch (error) {
    return (error as Error).name;
  }
}

scope.onmessage = async ({ data }) => {
  const command = data.command;
  if (command.command !== "mcp") throw new Error("the probe expects an mcp command");
  const { origin } = command.relay;
  const url = new URL(origin);
  const otherPort = `${url.protocol}//${url.hostname}:${Number(url.port) + 1}/`;
  const results = {
    relayHost: await attempt(async () => await (await fetch(`${origin}/mcp`)).body?.cancel()),
    otherPort: await attempt(() => fetch(otherPort)),
    otherHost: await attempt(() => fetch(`${url.protocol}//localhost:${url.port}/`)),
    keyVariable: await attempt(() => Deno.env.get(command.keyEnv)),
    otherVariable: await attempt(() => Deno.env.get("HOME")),
    allVariables: await attempt(() => Deno.env.toObject()),
    readFile: await attempt(() => Deno.readTextFile("/etc/hostname")),
    readOwnSource: await attempt(() => Deno.readTextFile(new URL(import.meta.url))),
    writeFile: await attempt(() => Deno.writeTextFile("/tmp/tinyagent-sandbox-probe", "x")),
    startProcess: await attempt(() => new Deno.Command("true").output()),
    systemInfo: await attempt(() => Deno.hostname()),
  };
  console.log(JSON.stringify({ worker: results }));
  scope.postMessage({ type: "exit", code: 0 });
};

scope.postMessage({ type: "ready" });
