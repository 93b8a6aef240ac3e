/**
 * A JSON value given as its text instead of parsed, for when parsing would change it: a number past double
 * precision (`12345678901234567890123`) or written in a form of its own (`1.0`, `1e3`) comes back from JSON.parse
 * as another spelling. A body given this way is delivered as this text, which the caller of the API wrote.
 */
export class JsonText {
  constructor(readonly text: string) {}
}
