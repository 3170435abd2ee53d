// A JSON checker that says where and what is wrong in words ("Line 3, column 9: expected ','
// or '}' after a property value"), the same in every browser, unlike JSON.parse's messages.
// It only validates; the value itself still comes from JSON.parse.

export type JsonCheck =
  | { ok: true; value: unknown }
  | { ok: false; message: string; line: number; column: number; offset: number };

class Problem {
  constructor(
    readonly message: string,
    readonly offset: number,
  ) {}
}

const MAX_DEPTH = 512;

export function checkJson(text: string): JsonCheck {
  try {
    new Checker(text).document();
  } catch (e) {
    if (e instanceof Problem) {
      const before = text.slice(0, e.offset);
      const line = before.split('\n').length;
      const column = e.offset - (before.lastIndexOf('\n') + 1) + 1;
      return { ok: false, message: e.message, line, column, offset: e.offset };
    }
    throw e;
  }
  return { ok: true, value: JSON.parse(text) as unknown };
}

function describe(char: string | undefined): string {
  if (char === undefined) return 'the end of the text';
  if (char === '\n') return 'a line break';
  return `'${char}'`;
}

class Checker {
  private at = 0;
  constructor(private readonly text: string) {}

  document() {
    this.space();
    if (this.at >= this.text.length) throw new Problem('the text is empty: a config is a JSON object such as {}', 0);
    this.value(0);
    this.space();
    if (this.at < this.text.length) {
      throw new Problem(`unexpected ${describe(this.text[this.at])} after the end of the JSON value`, this.at);
    }
  }

  /** The character at the cursor (a method, so that TypeScript does not narrow it across moves). */
  private peek(): string | undefined {
    return this.text[this.at];
  }

  private space() {
    while (this.at < this.text.length && ' \t\n\r'.includes(this.text[this.at])) this.at++;
  }

  private value(depth: number) {
    if (depth > MAX_DEPTH) throw new Problem(`nested more than ${MAX_DEPTH} levels deep`, this.at);
    const c = this.peek();
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    if (c === "'") throw new Problem('strings need double quotes ("), not single quotes', this.at);
    for (const word of ['true', 'false', 'null']) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return;
      }
    }
    if (c === undefined) throw new Problem('the text ends where a value was expected', this.at);
    if (/[A-Za-z_]/.test(c)) throw new Problem('unexpected word: text values need double quotes', this.at);
    throw new Problem(`unexpected ${describe(c)}: expected a value`, this.at);
  }

  private object(depth: number) {
    this.at++; // {
    this.space();
    if (this.peek() === '}') {
      this.at++;
      return;
    }
    for (;;) {
      if (this.peek() === '}') throw new Problem("trailing comma: remove the ',' before '}'", this.at);
      if (this.peek() === "'") throw new Problem('property names need double quotes ("), not single quotes', this.at);
      if (this.peek() !== '"') {
        throw new Problem(
          this.peek() === undefined ? "the text ends inside an object: a '}' is missing" : `expected a property name in double quotes, found ${describe(this.peek())}`,
          this.at,
        );
      }
      this.string();
      this.space();
      if (this.peek() !== ':') throw new Problem(`expected ':' after the property name, found ${describe(this.peek())}`, this.at);
      this.at++;
      this.space();
      this.value(depth + 1);
      this.space();
      if (this.peek() === ',') {
        this.at++;
        this.space();
        continue;
      }
      if (this.peek() === '}') {
        this.at++;
        return;
      }
      throw new Problem(
        this.peek() === undefined ? "the text ends inside an object: a '}' is missing" : `expected ',' or '}' after a property value, found ${describe(this.peek())}`,
        this.at,
      );
    }
  }

  private array(depth: number) {
    this.at++; // [
    this.space();
    if (this.peek() === ']') {
      this.at++;
      return;
    }
    for (;;) {
      if (this.peek() === ']') throw new Problem("trailing comma: remove the ',' before ']'", this.at);
      this.value(depth + 1);
      this.space();
      if (this.peek() === ',') {
        this.at++;
        this.space();
        continue;
      }
      if (this.peek() === ']') {
        this.at++;
        return;
      }
      throw new Problem(
        this.peek() === undefined ? "the text ends inside a list: a ']' is missing" : `expected ',' or ']' after a list item, found ${describe(this.peek())}`,
        this.at,
      );
    }
  }

  private string() {
    const start = this.at;
    this.at++; // "
    for (;;) {
      const c = this.peek();
      if (c === undefined) throw new Problem('this string is never closed: a \'"\' is missing', start);
      if (c === '"') {
        this.at++;
        return;
      }
      if (c === '\n') throw new Problem('line break inside a string: close the string, or write \\n', this.at);
      if (c < ' ') throw new Problem('control character inside a string', this.at);
      if (c === '\\') {
        const next = this.text[this.at + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.at + 2, this.at + 6))) {
            throw new Problem('\\u must be followed by four hexadecimal digits', this.at);
          }
          this.at += 6;
          continue;
        }
        if (next === undefined || !'"\\/bfnrt'.includes(next)) throw new Problem(`invalid escape \\${next ?? ''} inside a string`, this.at);
        this.at += 2;
        continue;
      }
      this.at++;
    }
  }

  private number() {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.at, this.at + 400));
    const next = match ? this.text[this.at + match[0].length] : undefined;
    if (!match || match[0] === '-' || (next !== undefined && /[\d.eE]/.test(next))) {
      throw new Problem('invalid number', this.at);
    }
    this.at += match[0].length;
  }
}

/** A value's kind in words, for "must be an object, this is …". */
export function kindOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return 'an object';
}

/** The same text for values that are equal whatever their keys' order and whitespace. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}
