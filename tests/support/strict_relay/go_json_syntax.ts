// Why Go's encoding/json refuses a text as JSON, in its words: the relay passes the decoder's error on
// as it is (`invalid event JSON: <error>` for an /events body or a NIP-98 token). Go checks the whole
// text with its scanner before decoding, so the first byte its state machine cannot take names the
// error: `invalid character 'x' <where>`, or `unexpected end of JSON input`.

const enum Expect {
  /** After `[`: a value or `]`. */
  ValueOrEnd,
  Value,
  /** After `{`: a key or `}`. */
  KeyOrEnd,
  Key,
  /** A complete value: what follows it depends on the enclosing object or array. */
  AfterValue,
  /** The top-level value is complete: only spaces may follow. */
  Done,
  InString,
  InEscape,
  /** Inside `\u`: how many hex digits are still due is kept aside. */
  InUnicode,
  /** After `-`. */
  Negative,
  /** Digits after a leading 1-9. */
  Digits,
  /** After a leading 0, or after the integer digits. */
  Zero,
  /** After `.`. */
  Dot,
  /** Digits after the decimal point. */
  Fraction,
  /** After `e` or `E`. */
  Exponent,
  /** After the exponent's sign. */
  ExponentSign,
  ExponentDigits,
  /** Inside true, false or null: the rest of the word is kept aside. */
  InLiteral,
}

const enum Scope {
  ObjectKey,
  ObjectValue,
  ArrayValue,
}

/** Go's limit on nesting (encoding/json maxNestingDepth). */
const MAX_DEPTH = 10000;

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** A byte as Go's scanner quotes it (quoteChar: strconv.Quote of the byte as a rune, in single quotes). */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  const named: Record<number, string> = {
    7: "\\a",
    8: "\\b",
    9: "\\t",
    10: "\\n",
    11: "\\v",
    12: "\\f",
    13: "\\r",
  };
  if (named[c]) return `'${named[c]}'`;
  if (c === 0x5c) return "'\\\\'";
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, "0")}'`;
  // U+0080–U+00A0 and the soft hyphen are not printable to Go; the rest of Latin-1 is.
  if (c >= 0x80 && (c <= 0xa0 || c === 0xad)) return `'\\u00${c.toString(16).padStart(2, "0")}'`;
  return `'${String.fromCharCode(c)}'`;
}

/** The scanner's state over a text, one byte at a time. */
class Scanner {
  expect = Expect.Value;
  scopes: Scope[] = [];
  /** The literal's remaining letters, with its name, or the \u escape's remaining digits. */
  literal = "";
  word = "";
  unicodeLeft = 0;

  /** The error the byte `c` causes, or undefined when the scanner takes it. */
  step(c: number): string | undefined {
    switch (this.expect) {
      case Expect.ValueOrEnd:
        if (isSpace(c)) return undefined;
        if (c === 0x5d) return this.close();
        return this.beginValue(c);
      case Expect.Value:
        return isSpace(c) ? undefined : this.beginValue(c);
      case Expect.KeyOrEnd:
        if (isSpace(c)) return undefined;
        if (c === 0x7d) {
          this.scopes[this.scopes.length - 1] = Scope.ObjectValue;
          return this.close();
        }
        return this.beginKey(c);
      case Expect.Key:
        return isSpace(c) ? undefined : this.beginKey(c);
      case Expect.AfterValue:
        return this.afterValue(c);
      case Expect.Done:
        return isSpace(c) ? undefined : this.error(c, "after top-level value");
      default:
        return this.inToken(c);
    }
  }

  /** At the end of the text: Go's scanner reads one more space, and what is still open is an error. */
  end(): string | undefined {
    if (this.expect === Expect.Done) return undefined;
    const error = this.step(0x20);
    if (error) return error;
    // Read through a method: the compiler cannot see step() move the state.
    return this.complete() ? undefined : "unexpected end of JSON input";
  }

  complete(): boolean {
    return this.expect === Expect.Done;
  }

  error(c: number, where: string): string {
    return `invalid character ${quoteChar(c)} ${where}`;
  }

  beginValue(c: number): string | undefined {
    if (c === 0x7b || c === 0x5b) {
      if (this.scopes.length >= MAX_DEPTH) return this.error(c, "exceeded max depth");
      this.scopes.push(c === 0x7b ? Scope.ObjectKey : Scope.ArrayValue);
      this.expect = c === 0x7b ? Expect.KeyOrEnd : Expect.ValueOrEnd;
      return undefined;
    }
    if (c === 0x22) this.expect = Expect.InString;
    else if (c === 0x2d) this.expect = Expect.Negative;
    else if (c === 0x30) this.expect = Expect.Zero;
    else if (c >= 0x31 && c <= 0x39) this.expect = Expect.Digits;
    else if (c === 0x74 || c === 0x66 || c === 0x6e) {
      this.word = c === 0x74 ? "true" : c === 0x66 ? "false" : "null";
      this.literal = this.word.slice(1);
      this.expect = Expect.InLiteral;
    } else return this.error(c, "looking for beginning of value");
    return undefined;
  }

  beginKey(c: number): string | undefined {
    if (c !== 0x22) return this.error(c, "looking for beginning of object key string");
    this.expect = Expect.InString;
    return undefined;
  }

  /** Ends the innermost object or array; the value it was is complete. */
  close(): undefined {
    this.scopes.pop();
    this.expect = this.scopes.length === 0 ? Expect.Done : Expect.AfterValue;
    return undefined;
  }

  /** A value just ended: a top-level one, or one inside an object or array. */
  valueEnded(): void {
    this.expect = this.scopes.length === 0 ? Expect.Done : Expect.AfterValue;
  }

  afterValue(c: number): string | undefined {
    if (isSpace(c)) return undefined;
    const top = this.scopes.length - 1;
    switch (this.scopes[top]) {
      case Scope.ObjectKey:
        if (c !== 0x3a) return this.error(c, "after object key");
        this.scopes[top] = Scope.ObjectValue;
        this.expect = Expect.Value;
        return undefined;
      case Scope.ObjectValue:
        if (c === 0x2c) {
          this.scopes[top] = Scope.ObjectKey;
          this.expect = Expect.Key;
          return undefined;
        }
        return c === 0x7d ? this.close() : this.error(c, "after object key:value pair");
      default:
        if (c === 0x2c) {
          this.expect = Expect.Value;
          return undefined;
        }
        return c === 0x5d ? this.close() : this.error(c, "after array element");
    }
  }

  /** A byte inside a string, a number or a literal. */
  inToken(c: number): string | undefined {
    switch (this.expect) {
      case Expect.InString:
        if (c === 0x22) this.valueEnded();
        else if (c === 0x5c) this.expect = Expect.InEscape;
        else if (c < 0x20) return this.error(c, "in string literal");
        return undefined;
      case Expect.InEscape:
        if (c === 0x75) {
          this.unicodeLeft = 4;
          this.expect = Expect.InUnicode;
        } else if ('bfnrt\\/"'.includes(String.fromCharCode(c))) this.expect = Expect.InString;
        else return this.error(c, "in string escape code");
        return undefined;
      case Expect.InUnicode:
        if (!isHex(c)) return this.error(c, "in \\u hexadecimal character escape");
        if (--this.unicodeLeft === 0) this.expect = Expect.InString;
        return undefined;
      case Expect.InLiteral:
        if (c !== this.literal.charCodeAt(0)) {
          return this.error(
            c,
            `in literal ${this.word} (expecting ${quoteChar(this.literal.charCodeAt(0))})`,
          );
        }
        this.literal = this.literal.slice(1);
        if (this.literal === "") this.valueEnded();
        return undefined;
      default:
        return this.inNumber(c);
    }
  }

  inNumber(c: number): string | undefined {
    switch (this.expect) {
      case Expect.Negative:
        if (c === 0x30) this.expect = Expect.Zero;
        else if (c >= 0x31 && c <= 0x39) this.expect = Expect.Digits;
        else return this.error(c, "in numeric literal");
        return undefined;
      case Expect.Digits:
        if (isDigit(c)) return undefined;
        return this.afterInteger(c);
      case Expect.Zero:
        return this.afterInteger(c);
      case Expect.Dot:
        if (!isDigit(c)) return this.error(c, "after decimal point in numeric literal");
        this.expect = Expect.Fraction;
        return undefined;
      case Expect.Fraction:
        if (isDigit(c)) return undefined;
        if (c === 0x65 || c === 0x45) {
          this.expect = Expect.Exponent;
          return undefined;
        }
        return this.numberEnded(c);
      case Expect.Exponent:
        if (c === 0x2b || c === 0x2d) {
          this.expect = Expect.ExponentSign;
          return undefined;
        }
        return this.exponentDigit(c);
      case Expect.ExponentSign:
        return this.exponentDigit(c);
      default:
        return isDigit(c) ? undefined : this.numberEnded(c);
    }
  }

  afterInteger(c: number): string | undefined {
    if (c === 0x2e) this.expect = Expect.Dot;
    else if (c === 0x65 || c === 0x45) this.expect = Expect.Exponent;
    else return this.numberEnded(c);
    return undefined;
  }

  exponentDigit(c: number): string | undefined {
    if (!isDigit(c)) return this.error(c, "in exponent of numeric literal");
    this.expect = Expect.ExponentDigits;
    return undefined;
  }

  /** A number ends at the first byte that cannot continue it, which is then read as what follows. */
  numberEnded(c: number): string | undefined {
    this.valueEnded();
    return this.step(c);
  }
}

/** Go's error for a text that is not JSON, or undefined when its scanner takes the text. */
export function goSyntaxError(bytes: Uint8Array): string | undefined {
  const scanner = new Scanner();
  for (const c of bytes) {
    const error = scanner.step(c);
    if (error) return error;
  }
  return scanner.end();
}
