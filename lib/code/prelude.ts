// The guest side of the bridge: JavaScript source run in the sandbox before the program. It is a script
// whose declarations live in one block (so none is visible to the program) and whose value is a function
// that tinyagent calls once with its two host functions, which stay in closures and are never put on the
// guest's global object, so the program cannot reach them. It gives the program:
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
// are taken before the program runs, so a program that replaces them changes only what it sees. Pure.

import { MESSAGE_MAX_CHARS, RESERVED_NAMES } from "./bridge.ts";

/** Bounds the prelude applies before anything crosses, in UTF-16 units. */
export interface PreludeBounds {
  /** The longest log line handed over. */
  lineMaxChars: number;
  /** The longest JSON text of the returned value handed over. */
  valueMaxChars: number;
}

/** The guest's source; the bounds are put in by preludeSource. */
const GUEST_SOURCE = String.raw`"use strict";
{
  const LINE_MAX = @LINE_MAX@, VALUE_MAX = @VALUE_MAX@, MESSAGE_MAX = ${MESSAGE_MAX_CHARS};
  const RESERVED = ${JSON.stringify(RESERVED_NAMES)};
  const apply = Reflect.apply, freeze = Object.freeze, create = Object.create;
  const defineProperty = Object.defineProperty;
  const stringify = JSON.stringify, parse = JSON.parse, toStr = String, GuestError = Error;
  const slice = String.prototype.slice, charCodeAt = String.prototype.charCodeAt;
  const includes = Array.prototype.includes, isArray = Array.isArray, keysOf = Object.keys;
  const hasOwn = Object.prototype.hasOwnProperty, asyncIterator = Symbol.asyncIterator;
  const followers = new WeakMap(), getFollower = WeakMap.prototype.get, setFollower = WeakMap.prototype.set;
  const cut = (text, max) => text.length > max ? apply(slice, text, [0, max]) : text;
  const messageOf = (error) => {
    try { return cut(toStr(error instanceof GuestError ? error.message : error), MESSAGE_MAX); }
    catch { return "an error that cannot be described"; }
  };
  const isTool = (name) => {
    if (typeof name !== "string" || name.length < 1 || name.length > 64) return false;
    for (let i = 0; i < name.length; i++) {
      const c = apply(charCodeAt, name, [i]);
      const ok = (c >= 97 && c <= 122) || (i > 0 && ((c >= 48 && c <= 57) || c === 95));
      if (!ok) return false;
    }
    return !apply(includes, RESERVED, [name]);
  };
  const keyOf = (name, options) => {
    if (options === undefined) return undefined;
    const said = "relay." + name + ": the second argument ";
    if (options === null || typeof options !== "object" || isArray(options)) {
      throw new GuestError(said + "must be an object: { idempotencyKey }");
    }
    const names = keysOf(options);
    for (let i = 0; i < names.length; i++) {
      if (names[i] !== "idempotencyKey") {
        throw new GuestError(said + "takes only idempotencyKey, not " + stringify(cut(names[i], 80)));
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
        const follow = apply(getFollower, followers, [page]);
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
  const makeRelay = (hostCall) => {
    const send = async (name, text, key) => {
      let answer;
      try { answer = await hostCall(name, text, key); } catch (message) { throw new GuestError(toStr(message)); }
      return answer === undefined ? undefined : paged(name, text, parse(answer));
    };
    const paged = (name, text, value) => {
      if (value === null || typeof value !== "object" || !apply(hasOwn, value, ["next_cursor"])) return value;
      const cursor = value.next_cursor;
      const next = typeof cursor === "string" && cursor !== "" ? cursor : undefined;
      const follow = async () => {
        if (next === undefined) return null;
        const args = text === undefined ? {} : parse(text);
        args.cursor = next;
        return await send(name, stringify(args));
      };
      apply(setFollower, followers, [value, follow]);
      define(value, "hasNextPage", () => next !== undefined);
      define(value, "getNextPage", follow);
      define(value, asyncIterator, () => walker(name, value));
      return value;
    };
    const invoke = async (name, args, options) => {
      let text;
      const key = keyOf(name, options);
      if (args !== undefined) {
        try { text = stringify(args); }
        catch (error) {
          const why = messageOf(error);
          throw new GuestError("relay." + name + ": the arguments cannot be sent as JSON: " + why);
        }
        if (text === undefined) throw new GuestError("relay." + name + ": the arguments must be an object");
      }
      return await send(name, text, key);
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
  (hostCall, hostLog) => {
    const relay = makeRelay(hostCall);
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

/** The prelude's source: a script whose value is `(hostCall, hostLog) => [start, describe]`. */
export function preludeSource(bounds: PreludeBounds): string {
  return GUEST_SOURCE.replace("@LINE_MAX@", String(bounds.lineMaxChars))
    .replace("@VALUE_MAX@", String(bounds.valueMaxChars));
}
