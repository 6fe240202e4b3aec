// The one source of the version: deno.json.
import config from "../deno.json" with { type: "json" };

export const VERSION: string = config.version;
export const NAME = "tinyagent";
