/**
 * One open chat: its stored messages, its latest turn followed live, and the
 * view folded from both by `foldChat` (apps/shared) — the same function for a
 * turn this tab started, a turn re-attached after a reload or in a second tab,
 * and a turn read back after it ended.
 *
 * Opening a chat reads its messages and follows its latest turn
 * (`GET /api/chats/:id/turns/current/events`: replayed, then live). A stream
 * that ends without `done` (a dropped connection) is followed again from the
 * last event id seen, so no event is lost or shown twice. Closing the stream
 * does not stop the turn — the server owns it; Stop cancels it.
 */
// Types only from the contracts (their schemas stay out of the bundle); the fold itself.
import type { ChatMessage, ChatMessagesResponse, TurnStreamEvent } from '@mango/shared';
import { applyTurnEvent, type ChatView, foldChat } from '@mango/shared/chat-view';
import { ApiError, api, messageOf } from './api';
import { followTurn, readTurnEvents, type StartTurnBody, startTurn } from './turn-stream';

export type SessionState = 'loading' | 'idle' | 'starting' | 'streaming' | 'reconnecting';

export interface SessionSnapshot {
  state: SessionState;
  view: ChatView;
  /** A problem to show (a refused turn, a lost connection). */
  problem?: string;
  /** The text of the last message this tab sent (for Retry). */
  lastSent?: StartTurnBody;
}

const RECONNECT_DELAYS_MS = [250, 500, 1000, 2000, 4000];
const SHOW_RUNNING_AFTER_MS = 150;

export class ChatSession {
  private stored: ChatMessage[] = [];
  private events: TurnStreamEvent[] = [];
  private userText: string | undefined;
  private lastEventId: string | undefined;
  private snapshot: SessionSnapshot = { state: 'loading', view: { messages: [] } };
  private readonly listeners = new Set<(snapshot: SessionSnapshot) => void>();
  private readonly closed = new AbortController();
  private frame: number | undefined;
  private following = false;

  constructor(
    readonly chatId: string,
    /** Told when a turn ends (the chat list may show a new title). */
    private readonly onTurnEnded: () => void = () => {},
  ) {}

  subscribe(listener: (snapshot: SessionSnapshot) => void): () => void {
    this.listeners.add(listener);
    listener(this.snapshot);
    return () => this.listeners.delete(listener);
  }

  get current(): SessionSnapshot {
    return this.snapshot;
  }

  close(): void {
    this.closed.abort();
    if (this.frame !== undefined) cancelAnimationFrame(this.frame);
    this.listeners.clear();
  }

  async open(): Promise<void> {
    try {
      this.stored = await this.readMessages();
      this.setView(foldChat(this.stored));
      // A chat with messages has a latest turn (running, or ended with its events kept); the
      // chat stays `loading` until that turn is replayed, or shown running.
      if (this.stored.length > 0) await this.follow();
      else this.update({ state: 'idle' });
    } catch (error) {
      if (!this.closed.signal.aborted) this.update({ state: 'idle', problem: messageOf(error) });
    }
  }

  /** Follows the latest turn again if one started elsewhere (called when the tab is shown again). */
  async refresh(): Promise<void> {
    if (this.snapshot.state === 'idle' && !this.following) await this.follow();
  }

  async send(body: StartTurnBody): Promise<void> {
    if (this.snapshot.state !== 'idle') return;
    this.update({ state: 'starting', problem: undefined, lastSent: body });
    let response: Response;
    try {
      response = await startTurn(this.chatId, body, this.closed.signal);
    } catch (error) {
      if (this.closed.signal.aborted) return;
      // Refused before it started (no model, a limit…): nothing changed, say why.
      this.update({ state: 'idle', problem: messageOf(error) });
      // A turn already running here (started in another tab) is followed instead.
      if (error instanceof ApiError && error.status === 409) await this.follow();
      return;
    }
    this.events = [];
    this.userText = body.content;
    this.lastEventId = undefined;
    this.update({ state: 'streaming' });
    try {
      const done = await readTurnEvents(response, (event, id) => this.receive(event, id));
      if (done) await this.ended();
      else await this.follow();
    } catch {
      // The stream broke: the turn goes on on the server; follow it from the last event seen.
      if (!this.closed.signal.aborted) await this.follow();
    }
  }

  async stop(): Promise<void> {
    try {
      await api(`/api/chats/${encodeURIComponent(this.chatId)}/turns/cancel`, { method: 'POST' });
    } catch (error) {
      this.update({ problem: messageOf(error) });
    }
  }

  private async readMessages(): Promise<ChatMessage[]> {
    const { messages } = await api<ChatMessagesResponse>(
      `/api/chats/${encodeURIComponent(this.chatId)}/messages`,
      { signal: this.closed.signal },
    );
    return messages;
  }

  /** Follows the latest turn from the last event seen, reconnecting until `done`. */
  private async follow(): Promise<void> {
    if (this.following) return;
    this.following = true;
    try {
      for (let attempt = 0; !this.closed.signal.aborted; attempt++) {
        try {
          const response = await followTurn(this.chatId, this.lastEventId, this.closed.signal);
          if (!response) break;
          // A turn that has ended replays at once and closes: shown as running (with Stop)
          // only when it is still going a moment later.
          const promote = setTimeout(() => {
            if (this.snapshot.state !== 'streaming') this.update({ state: 'streaming' });
          }, SHOW_RUNNING_AFTER_MS);
          if (this.snapshot.state === 'reconnecting') this.update({ state: 'streaming' });
          const done = await readTurnEvents(response, (event, id) =>
            this.receive(event, id),
          ).finally(() => clearTimeout(promote));
          if (done) {
            await this.ended();
            return;
          }
          // Followed from the `done` of a turn that had ended: nothing new happened.
          if (this.snapshot.view.turn?.state === 'done') {
            this.update({ state: 'idle' });
            return;
          }
        } catch (error) {
          if (this.closed.signal.aborted) return;
          if (attempt >= RECONNECT_DELAYS_MS.length) {
            this.update({ state: 'idle', problem: `Lost the turn's stream: ${messageOf(error)}` });
            return;
          }
        }
        this.update({ state: 'reconnecting' });
        await new Promise((resolve) =>
          setTimeout(
            resolve,
            RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)],
          ),
        );
      }
      if (!this.closed.signal.aborted) this.update({ state: 'idle' });
    } finally {
      this.following = false;
    }
  }

  private receive(event: TurnStreamEvent, id: string | undefined): void {
    if (id) this.lastEventId = id;
    if (event.type === 'turn_started') {
      const previous = this.snapshot.view.turn;
      this.events = [event];
      if (previous && previous.turnId !== event.turnId && this.userText === undefined) {
        // A turn another tab started: what came before it is stored now, so read it again.
        void this.readMessages()
          .then((messages) => {
            this.stored = messages;
            this.setView(foldChat(this.stored, { events: this.events }));
          })
          .catch(() => {});
      }
      this.setView(
        foldChat(this.stored, {
          events: this.events,
          ...(this.userText !== undefined ? { userText: this.userText } : {}),
        }),
      );
      return;
    }
    this.events.push(event);
    this.setView(applyTurnEvent(this.snapshot.view, event), event.type !== 'done');
  }

  private async ended(): Promise<void> {
    // The turn is stored by now; read it back so the next turn folds from the store.
    try {
      this.stored = await this.readMessages();
      this.setView(foldChat(this.stored, { events: this.events }));
    } catch {
      // The view from the events stands.
    }
    this.userText = undefined;
    this.update({ state: 'idle' });
    this.onTurnEnded();
  }

  private setView(view: ChatView, batched = false): void {
    this.snapshot = { ...this.snapshot, view };
    if (!batched) {
      this.publish();
      return;
    }
    // Deltas arrive far faster than frames: the page is drawn at most once per frame.
    this.frame ??= requestAnimationFrame(() => {
      this.frame = undefined;
      this.publish();
    });
  }

  private update(change: Partial<SessionSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...change };
    if ('problem' in change && change.problem === undefined) delete this.snapshot.problem;
    this.publish();
  }

  private publish(): void {
    if (this.frame !== undefined) {
      cancelAnimationFrame(this.frame);
      this.frame = undefined;
    }
    for (const listener of this.listeners) listener(this.snapshot);
  }
}
