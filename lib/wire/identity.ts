// The program's name and version, as both wires carry them (serverInfo to the host, clientInfo to
// the relay) and as --version prints them. The one source of the version is deno.json.
import config from "../../deno.json" with { type: "json" };

export const VERSION: string = config.version;
export const NAME = "tinyagent";
