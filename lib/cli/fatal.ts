// A startup failure: one line on stderr, then this exit status. Its own module, so the entry
// point can name it without loading everything a command runs.

export class Fatal extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}
