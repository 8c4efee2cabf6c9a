import type { Logger } from '../lib/logger.ts';
import { HostError, type DeviceCode, type OAuthClient, type Token } from './oauth-client.ts';

export type FlowStatus = 'pending' | 'authenticated' | 'denied' | 'expired' | 'cancelled';

/** Core "Login flow snapshot". */
export interface FlowSnapshot {
  flow_id: string;
  provider: string;
  status: FlowStatus;
  verification_uri?: string;
  verification_uri_complete?: string;
  user_code?: string;
  expires_in?: number;
  expires_at?: string;
  interval?: number;
  resolved_at?: string;
  error_message?: string;
}

/** RFC 8628 section 3.5: slow_down adds 5 seconds to the interval. */
const SLOW_DOWN_STEP_S = 5;
const DEFAULT_INTERVAL_S = 5;

export interface FlowDeps {
  client: OAuthClient;
  log: Logger;
  now: () => Date;
  /** Milliseconds per interval second (1000 outside tests). */
  pollUnitMs: number;
  /** Called once with the token; stores it and writes the provider. Its error message (if any) is kept on the snapshot. */
  onToken: (token: Token) => Promise<string | undefined>;
}

/**
 * One device-authorization flow (RFC 8628): polls the token endpoint every
 * `interval` until the user approves, denies, or the device code expires.
 */
export class LoginFlow {
  private snap: FlowSnapshot;
  private intervalS: number;
  private readonly deadline: number;
  private timer?: NodeJS.Timeout;
  /** The poll in flight, awaited by close so nothing writes after shutdown. */
  private inflight?: Promise<void>;
  /** Ends a poll in flight when the flow is cancelled, so shutdown never waits for the host. */
  private readonly abort = new AbortController();

  constructor(flowId: string, provider: string, private readonly code: DeviceCode, private readonly deps: FlowDeps) {
    const now = deps.now().getTime();
    this.intervalS = code.interval ?? DEFAULT_INTERVAL_S;
    this.deadline = now + code.expires_in * 1000;
    this.snap = {
      flow_id: flowId, provider, status: 'pending',
      verification_uri: code.verification_uri,
      verification_uri_complete: code.verification_uri_complete ?? code.verification_uri,
      user_code: code.user_code,
      expires_in: code.expires_in,
      interval: this.intervalS,
      expires_at: new Date(this.deadline).toISOString(),
    };
  }

  get id(): string {
    return this.snap.flow_id;
  }

  get status(): FlowStatus {
    return this.snap.status;
  }

  snapshot(): FlowSnapshot {
    return { ...this.snap };
  }

  start(): void {
    this.schedule();
  }

  /** Aborts a pending flow; returns whether it was pending. */
  cancel(): boolean {
    if (this.snap.status !== 'pending') return false;
    this.resolve('cancelled');
    return true;
  }

  async close(): Promise<void> {
    this.cancel();
    await this.inflight;
  }

  private schedule(): void {
    const delay = Math.min(this.intervalS * this.deps.pollUnitMs, Math.max(0, this.deadline - this.deps.now().getTime()));
    this.timer = setTimeout(() => {
      this.inflight = this.poll().catch((err) => {
        // Storing the credential or writing the config failed: end the flow rather than leave it pending forever.
        this.deps.log.error({ err: (err as Error).message }, 'login failed after approval');
        if (this.snap.status === 'pending') this.resolve('denied', `login failed: ${(err as Error).message}`);
      });
    }, delay);
    this.timer.unref();
  }

  private resolve(status: FlowStatus, message?: string): void {
    clearTimeout(this.timer);
    this.abort.abort();
    this.snap = { ...this.snap, status, resolved_at: this.deps.now().toISOString(), ...(message ? { error_message: message } : {}) };
  }

  private async poll(): Promise<void> {
    if (this.snap.status !== 'pending') return;
    if (this.deps.now().getTime() >= this.deadline) return this.resolve('expired', 'the device code expired before the login was approved');
    let outcome;
    try {
      outcome = await this.deps.client.pollToken(this.code.device_code, this.abort.signal);
    } catch (err) {
      if (this.snap.status !== 'pending') return;
      // Network trouble or a 5xx: keep polling until the deadline.
      this.deps.log.warn({ err: (err as HostError).message }, 'token endpoint unavailable; polling again');
      return this.next();
    }
    if (this.snap.status !== 'pending') return;
    if (outcome.kind === 'token') {
      const warning = await this.deps.onToken(outcome.token);
      if (this.snap.status === 'pending') this.resolve('authenticated', warning);
      return;
    }
    switch (outcome.error) {
      case 'authorization_pending':
        return this.next();
      case 'slow_down':
        this.intervalS += SLOW_DOWN_STEP_S;
        this.snap = { ...this.snap, interval: this.intervalS };
        return this.next();
      case 'access_denied':
        return this.resolve('denied', outcome.description ?? 'the user denied the login');
      case 'expired_token':
        return this.resolve('expired', outcome.description ?? 'the device code expired before the login was approved');
      default:
        return this.resolve('denied', `token endpoint: ${outcome.error}${outcome.description ? `: ${outcome.description}` : ''}`);
    }
  }

  private next(): void {
    if (this.snap.status === 'pending') this.schedule();
  }
}
