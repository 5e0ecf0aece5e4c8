// A request to pause a running cycle: the engine finishes the step it is in, saves the next one and
// returns, so "resume" continues exactly there. Stopping (the abort signal) interrupts a step instead.

export interface PauseRequest {
  readonly requested: boolean;
}

export class PauseSignal implements PauseRequest {
  private wanted = false;

  get requested(): boolean {
    return this.wanted;
  }

  request(): void {
    this.wanted = true;
  }
}
