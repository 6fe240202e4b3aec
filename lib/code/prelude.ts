// The guest side of the bridge: JavaScript source run in the sandbox before the program. It is a script
// whose declarations live in one block (so none is visible to the program) and whose value is a function
// that tinyagent calls once with its three host functions (a call, a log line, and the pages and keys of
// EXTRAS_SOURCE, compiled only for a program that meets them: compiling is most of what the prelude costs
// each program), which stay in closures and are never put on the guest's global object, so the program
// cannot reach them. It gives the program:
//
// - `relay`, passed to run(): a Proxy over a frozen, prototype-less object. Reading a name that matches
//   the tool grammar (bridge.ts's TOOL_NAME, bar RESERVED_NAMES) gives a frozen async arrow function;
//   calling it, `(args, options)`, sends (name, JSON text of args, options' idempotencyKey) to the host
//   and returns a promise of the parsed answer; a host rejection is rethrown as `Error(message)`. Any
//   other name (symbols, `__proto__`, `then`, `constructor`, `toString`) reads as undefined; setting,
//   defining, deleting and changing its prototype fail.
// - pages: an answer object with a `next_cursor` field also has `hasNextPage()`, `getNextPage()` (the
//   same call with `cursor` set to it; null after the last page) and `[Symbol.asyncIterator]`, which
//   walks its `items` and those of the pages after it. None is enumerable, so JSON never shows them;
//   a field of the answer's own with one of those names is left as it is.
// - `console.log/info/warn/error/debug`: each call one line (strings as they are, Errors as
//   `Name: message`, other values as JSON, joined by spaces), cut to a bound before it crosses.
//
// It gives tinyagent back [start, describe]: start(run) calls run(relay) and resolves with the end as a
// prototype-less record of plain fields (the value serialized and cut inside the guest, so a large value
// never crosses whole); describe(error) turns a thrown value into such a record. The built-ins it uses
// are taken before the program runs (EXTRAS_SOURCE's when first needed), so a program that replaces them
// changes only what it sees. Pure.

import { MESSAGE_MAX_CHARS, RESERVED_NAMES } from "./bridge.ts";

/** Bounds the prelude applies before anything crosses, in UTF-16 units. */
export interface PreludeBounds {
  /** The longest log line handed over. */
  lineMaxChars: number;
  /** The longest JSON text of the returned value handed over. */
  valueMaxChars: number;
}

/**
 * Pages and keys: a script whose value is `{ keyOf, paged }`, run by the host the first time a program
 * needs one. It takes its built-ins then, so a program that replaced one before changes only what this
 * program sees of its own pages and keys: tinyagent checks whatever crosses (bridge.ts) all the same.
 */
export const EXTRAS_SOURCE = String.raw`"use strict"; (() => {
  const apply = Reflect.apply, freeze = Object.freeze, defineProperty = Object.defineProperty;
  const stringify = JSON.stringify, parse = JSON.parse, GuestError = Error, isArray = Array.isArray;
  const keysOf = Object.keys, hasOwn = Object.prototype.hasOwnProperty, slice = String.prototype.slice;
  const weakGet = WeakMap.prototype.get, weakSet = WeakMap.prototype.set, followers = new WeakMap();
  const asyncIterator = Symbol.asyncIterator;
  const keyOf = (name, options) => {
    const said = "relay." + name + ": the second argument ";
    if (options === null || typeof options !== "object" || isArray(options)) {
      throw new GuestError(said + "must be an object: { idempotencyKey }");
    }
    const names = keysOf(options);
    for (let i = 0; i < names.length; i++) {
      if (names[i] !== "idempotencyKey") {
        const shown = names[i].length > 80 ? apply(slice, names[i], [0, 80]) : names[i];
        throw new GuestError(said + "takes only idempotencyKey, not " + stringify(shown));
      }
    }
    const key = options.idempotencyKey;
    if (key !== undefined && typeof key !== "string") throw new GuestError(said + "needs a string idempotencyKey");
    return key;
  };
  const define = (page, name, value) => {
    if (!apply(hasOwn, page, [name])) defineProperty(page, name, { value: freeze(value), configurable: true });
  };
  // Walks the items of a page, then of each page after it, until the cursor is empty.
  const walker = (name, first) => {
    let page = first, index = 0;
    const next = async () => {
      while (page !== undefined && page !== null) {
        const items = typeof page === "object" ? page.items : undefined;
        if (!isArray(items)) throw new GuestError("relay." + name + ": its answer has no items to walk");
        if (index < items.length) return { value: items[index++], done: false };
        const follow = apply(weakGet, followers, [page]);
        page = follow === undefined ? undefined : await follow();
        index = 0;
      }
      return { value: undefined, done: true };
    };
    const stop = async () => {
      page = undefined;
      return { value: undefined, done: true };
    };
    return freeze({ next, return: stop });
  };
  // An answer with a next_cursor, given the ways to go on; invoke(name, args) makes the next call.
  const paged = (name, text, value, invoke) => {
    if (!apply(hasOwn, value, ["next_cursor"])) return value;
    const cursor = value.next_cursor;
    const next = typeof cursor === "string" && cursor !== "" ? cursor : undefined;
    const follow = async () => {
      if (next === undefined) return null;
      const args = text === undefined ? {} : parse(text);
      args.cursor = next;
      return await invoke(name, args);
    };
    apply(weakSet, followers, [value, follow]);
    define(value, "hasNextPage", () => next !== undefined);
    define(value, "getNextPage", follow);
    define(value, asyncIterator, () => walker(name, value));
    return value;
  };
  return freeze({ keyOf, paged });
})()`;

/** The guest's source; the bounds are put in by preludeSource. */
const GUEST_SOURCE = String.raw`"use strict";
{
  const LINE_MAX = @LINE_MAX@, VALUE_MAX = @VALUE_MAX@, MESSAGE_MAX = ${MESSAGE_MAX_CHARS};
  const TOOL = /^(?!(?:${RESERVED_NAMES.join("|")})$)[a-z][a-z0-9_]{0,63}$/, exec = RegExp.prototype.exec;
  const apply = Reflect.apply, freeze = Object.freeze, create = Object.create;
  const defineProperty = Object.defineProperty;
  const stringify = JSON.stringify, parse = JSON.parse, toStr = String, GuestError = Error;
  const slice = String.prototype.slice;
  const cut = (text, max) => text.length > max ? apply(slice, text, [0, max]) : text;
  const messageOf = (error) => {
    try { return cut(toStr(error instanceof GuestError ? error.message : error), MESSAGE_MAX); }
    catch { return "an error that cannot be described"; }
  };
  const isTool = (name) => typeof name === "string" && apply(exec, TOOL, [name]) !== null;
  const makeRelay = (hostCall, hostExtras) => {
    const invoke = async (name, args, options) => {
      let text;
      const key = options === undefined ? undefined : hostExtras().keyOf(name, options);
      if (args !== undefined) {
        try { text = stringify(args); }
        catch (error) {
          const why = messageOf(error);
          throw new GuestError("relay." + name + ": the arguments cannot be sent as JSON: " + why);
        }
        if (text === undefined) throw new GuestError("relay." + name + ": the arguments must be an object");
      }
      let answer;
      try { answer = await hostCall(name, text, key); } catch (message) { throw new GuestError(toStr(message)); }
      const value = answer === undefined ? undefined : parse(answer);
      return value?.next_cursor === undefined ? value : hostExtras().paged(name, text, value, invoke);
    };
    const tool = (name) => freeze((args, options) => invoke(name, args, options));
    const refuse = () => false;
    return new Proxy(freeze(create(null)), freeze({
      get: (target, name) => isTool(name) ? tool(name) : undefined,
      set: refuse, defineProperty: refuse, deleteProperty: refuse, setPrototypeOf: refuse,
    }));
  };
  const format = (value) => {
    if (typeof value === "string") return value;
    try {
      if (value instanceof GuestError) return toStr(value.name) + ": " + toStr(value.message);
      if (typeof value === "function") {
        return "[Function" + (value.name ? ": " + toStr(value.name) : "") + "]";
      }
      if (typeof value === "bigint") return toStr(value) + "n";
      const json = stringify(value);
      return json === undefined ? toStr(value) : json;
    } catch {
      try { return toStr(value); } catch { return "[unprintable]"; }
    }
  };
  const installConsole = (hostLog) => {
    const logger = (level) => freeze((...values) => {
      let line = "";
      for (let i = 0; i < values.length && line.length <= LINE_MAX; i++) {
        line += (i ? " " : "") + format(values[i]);
      }
      hostLog(level, cut(line, LINE_MAX));
    });
    const methods = { log: logger("log"), info: logger("info"), warn: logger("warn"), error: logger("error"),
      debug: logger("debug") };
    defineProperty(globalThis, "console", { value: freeze(methods), writable: true, configurable: true });
  };
  const describe = (error) => {
    const end = create(null);
    end.kind = "threw";
    end.name = "";
    try {
      if (error instanceof GuestError) {
        end.name = cut(toStr(error.name), 200);
        end.message = cut(toStr(error.message), MESSAGE_MAX);
        const stack = typeof error.stack === "string" ? error.stack : "";
        end.text = cut(end.name + ": " + end.message + (stack ? "\n" + stack : ""), MESSAGE_MAX);
      } else {
        end.message = cut(format(error), MESSAGE_MAX);
        end.text = "uncaught " + end.message;
      }
    } catch {
      if (typeof end.message !== "string") end.message = "a thrown value that cannot be described";
      end.text = end.name ? end.name + ": " + end.message : end.message;
    }
    return end;
  };
  const finish = (value) => {
    const end = create(null);
    let json;
    try { json = stringify(value); } catch (error) {
      end.kind = "unserializable";
      end.message = messageOf(error);
      return end;
    }
    if (json === undefined) {
      end.kind = "undefined";
      return end;
    }
    end.kind = "value";
    end.length = json.length;
    end.json = cut(json, VALUE_MAX);
    return end;
  };
  (hostCall, hostLog, hostExtras) => {
    const relay = makeRelay(hostCall, hostExtras);
    installConsole(hostLog);
    // await, not then(): a program that replaced Promise's constructor or species cannot make this promise.
    const start = async (run) => {
      let value;
      try { value = await run(relay); } catch (error) { return describe(error); }
      return finish(value);
    };
    return freeze([start, describe]);
  };
}`;

/** The prelude's source: a script whose value is `(hostCall, hostLog, hostExtras) => [start, describe]`. */
export function preludeSource(bounds: PreludeBounds): string {
  return GUEST_SOURCE.replace("@LINE_MAX@", String(bounds.lineMaxChars))
    .replace("@VALUE_MAX@", String(bounds.valueMaxChars));
}
