import { UserError } from '../../operator/cli/user-error.js';

/** The port is taken by another program (a port the caller chose, or one taken in a race). */
export class PortInUseError extends UserError {
  constructor(port: number) {
    super(`port ${port} is in use: stop the program holding it (lsof -i :${port}) or pick another port`);
    this.name = 'PortInUseError';
  }
}
