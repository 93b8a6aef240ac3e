/*
 * The text a caller wrote for the JSON values that JSON.parse would respell. JSON.parse makes every number a
 * double, so `12345678901234567890123` reads back as 1.2345678901234568e+22 and `1.0` as 1, while a body Ferry
 * delivers must keep the caller's numbers. Node 20 has no JSON.parse source-text access, hence this scanner.
 *
 * A text whose numbers all read back as written, the common case, costs one regular expression test. Otherwise a
 * scan of the text notes, for every object member whose value holds a respelled number, where that value's text
 * is; the reader of a JSON body then keeps the text of the body values that need it.
 */

/**
 * Matches every JSON number that does not read back as written: 16 or more digits (past double precision), an
 * exponent, a fraction ending in 0, a negative zero, or six zeros after the point (written back with an
 * exponent). With 15 digits or fewer and none of these, a decimal is the shortest spelling of its double. Strings
 * and some other numbers match too; the scan then finds nothing to note.
 */
const MAYBE_RESPELLED = /[0-9][0-9.]{15}|[0-9][eE]|\.[0-9]*0(?![0-9])|-0(?![.0-9])|\.0{6}/;

/** Where a member's value is in the text it was parsed from. */
interface Span {
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** Per parsed object: the members whose values hold a respelled number. */
const respelledMembers = new WeakMap<object, Map<string, Span>>();

/** True when some number of this JSON text would not read back as written. */
export function hasRespelledNumber(text: string): boolean {
  if (!MAYBE_RESPELLED.test(text)) return false;
  let found = false;
  scan(text, undefined, (_parent, _key, _start, _end, respelled) => {
    found ||= respelled;
  });
  return found;
}

/**
 * Notes the members of `parsed` (what JSON.parse made of `text`) whose values hold a respelled number, so that
 * `respelledText` can give their text back.
 */
export function noteRespelledNumbers(text: string, parsed: unknown): void {
  if (!MAYBE_RESPELLED.test(text)) return;
  scan(text, parsed, (parent, key, start, end, respelled) => {
    if (typeof parent !== 'object' || parent === null || Array.isArray(parent)) return;
    let members = respelledMembers.get(parent);
    if (respelled) {
      if (members === undefined) respelledMembers.set(parent, (members = new Map()));
      members.set(key, { text, start, end });
    } else {
      // A repeated key: JSON.parse keeps the last value, and so does this.
      members?.delete(key);
    }
  });
}

/**
 * The text of member `key` of a parsed object, whitespace outside strings removed, when its value holds a number
 * that JSON.parse respelled; undefined otherwise.
 */
export function respelledText(parent: object, key: string): string | undefined {
  const span = respelledMembers.get(parent)?.get(key);
  return span === undefined ? undefined : withoutWhitespace(span.text.slice(span.start, span.end));
}

/** Told of every object member and array item: its parent as parsed, its key, its text, whether it respells. */
type Visit = (parent: unknown, key: string, start: number, end: number, respelled: boolean) => void;

interface Frame {
  /** The container as parsed, or undefined when not known (the scan then only reads the text). */
  readonly parsed: unknown;
  readonly array: boolean;
  readonly start: number;
  readonly parent: Frame | undefined;
  /** Its own key in its parent (an item's index as text). */
  readonly slot: string;
  /** The key of the member being read, in an object. */
  key: string;
  /** The index of the item being read, in an array. */
  index: number;
  respelled: boolean;
}

const QUOTE = 34;
const BACKSLASH = 92;

/**
 * Walks JSON text that JSON.parse accepted, with a stack of its own so that any depth is safe, and tells `visit`
 * of every member and item once its value is complete. `parsed` is walked alongside to name each parent.
 */
function scan(text: string, parsed: unknown, visit: Visit): void {
  let frame: Frame | undefined;
  // A value outside any container (the text is one number, say) is told with no parent.
  const done = (start: number, end: number, respelled: boolean): void => {
    visit(frame?.parsed, frame === undefined ? '' : frame.array ? String(frame.index) : frame.key, start, end, respelled);
    if (respelled && frame !== undefined) frame.respelled = true;
  };
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 123 /* { */ || c === 91 /* [ */) {
      const slot = frame === undefined ? '' : frame.array ? String(frame.index) : frame.key;
      const own = frame === undefined ? parsed : member(frame.parsed, slot);
      frame = { parsed: own, array: c === 91, start: i, parent: frame, slot, key: '', index: 0, respelled: false };
      i++;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      i++;
      const closed = frame!;
      frame = closed.parent;
      if (frame !== undefined) {
        visit(frame.parsed, closed.slot, closed.start, i, closed.respelled);
        if (closed.respelled) frame.respelled = true;
      }
    } else if (c === QUOTE) {
      const end = stringEnd(text, i);
      let next = end;
      while (next < n && isSpace(text.charCodeAt(next))) next++;
      if (frame !== undefined && !frame.array && text.charCodeAt(next) === 58 /* : */) {
        // A key: it names the slot of the value that follows.
        const raw = text.slice(i + 1, end - 1);
        frame.key = raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw;
        i = next + 1;
      } else {
        done(i, end, false);
        i = end;
      }
    } else if (c === 44 /* , */) {
      if (frame?.array) frame.index++;
      i++;
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      let end = i + 1;
      while (end < n && isNumberChar(text.charCodeAt(end))) end++;
      const token = text.slice(i, end);
      done(i, end, String(Number(token)) !== token);
      i = end;
    } else if (c === 116 /* t */ || c === 102 /* f */ || c === 110 /* n */) {
      const end = i + (c === 102 ? 5 : 4);
      done(i, end, false);
      i = end;
    } else {
      i++;
    }
  }
}

function member(parsed: unknown, key: string): unknown {
  if (typeof parsed !== 'object' || parsed === null || !Object.hasOwn(parsed, key)) return undefined;
  return (parsed as Record<string, unknown>)[key];
}

/** The index just past the closing quote of the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    let backslashes = 0;
    while (text.charCodeAt(q - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    i = q + 1;
  }
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function isNumberChar(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45;
}

/** JSON text without the whitespace between tokens. */
function withoutWhitespace(text: string): string {
  if (!/[ \n\r\t]/.test(text)) return text;
  let out = '';
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
    } else if (isSpace(c)) {
      out += text.slice(from, i);
      while (i < text.length && isSpace(text.charCodeAt(i))) i++;
      from = i;
    } else {
      i++;
    }
  }
  return out + text.slice(from);
}
