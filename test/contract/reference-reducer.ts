// A client-side transcript store written from spec/clients.md section C (and A8), independent of the daemon's
// code: it applies a GET /transcript baseline, then every transcript.reset / transcript.ops frame in order.
// A gap (a seq that is not watermark + 1, an append that does not fit) throws: the real client would reload.

type Obj = Record<string, any>;

export class ReferenceTranscript {
  items: Obj[] = [];
  tasks = new Map<string, Obj>();
  interactions = new Map<string, Obj>();
  attachments = new Map<string, Obj>();
  todos = new Map<string, Obj>();
  prompts = new Map<string, Obj>();
  meta: Obj = {};
  pending = new Set<string>();
  watermark: number | undefined;
  batches = 0;

  /** GET /transcript data (or a reset snapshot) as the new baseline. */
  load(d: Obj, seq: number | undefined): void {
    this.items = structuredClone(d.items);
    const keyed = (list: Obj[] | undefined, key: string) => new Map((list ?? []).map((x) => [x[key], structuredClone(x)]));
    this.tasks = keyed(d.tasks, 'taskId');
    this.interactions = keyed(d.interactions, 'interactionId');
    this.attachments = keyed(d.attachments, 'attachmentId');
    this.todos = keyed(d.todos, 'todoId');
    this.prompts = keyed(d.prompts, 'promptId');
    this.meta = structuredClone(d.meta);
    this.pending = new Set([...this.interactions.values()].filter((i) => i.state === 'pending').map((i) => i.interactionId));
    this.watermark = seq;
  }

  /** One transcript frame of the main agent. */
  frame(f: Obj): void {
    const p = f.payload;
    if (f.type === 'transcript.reset') {
      if (!p.snapshot.items.length) throw new Error('reset without items: the client would reload over REST');
      this.load(p.snapshot, p.seq);
      return;
    }
    if (typeof p.seq === 'number' && this.watermark !== undefined) {
      if (p.seq <= this.watermark) return;
      if (p.seq !== this.watermark + 1) throw new Error(`gap: batch ${p.seq} after watermark ${this.watermark}`);
    }
    for (const op of p.ops) this.op(op);
    if (typeof p.seq === 'number') this.watermark = p.seq;
    this.batches += 1;
  }

  private turns(): Obj[] {
    return this.items.filter((i) => i.kind === 'turn');
  }

  private turn(turnId: string): Obj {
    let t = this.turns().find((x) => x.turnId === turnId);
    if (!t) {
      t = { kind: 'turn', turnId, ordinal: Number(turnId.slice(1)), state: 'running', origin: { kind: 'other' }, steps: [] };
      this.insertTurn(t);
    }
    return t;
  }

  private insertTurn(t: Obj): void {
    const i = this.items.findIndex((x) => x.kind === 'turn' && x.ordinal > t.ordinal);
    if (i < 0) this.items.push(t);
    else this.items.splice(i, 0, t);
  }

  private step(turnId: string, stepId: string): Obj {
    const t = this.turn(turnId);
    let s = t.steps.find((x: Obj) => x.stepId === stepId);
    if (!s) {
      s = { kind: 'step', stepId, turnId, ordinal: Number(stepId.slice(turnId.length + 1)), state: 'running', frames: [] };
      t.steps.push(s);
      t.steps.sort((a: Obj, b: Obj) => a.ordinal - b.ordinal);
    }
    return s;
  }

  private upsertItem(item: Obj, key: string, beforeTurn: number | undefined): void {
    const at = this.items.findIndex((x) => x[key] === item[key] && x.kind === item.kind);
    if (at >= 0) {
      this.items[at] = item;
      return;
    }
    const i = beforeTurn === undefined ? -1 : this.items.findIndex((x) => x.kind === 'turn' && x.ordinal >= beforeTurn);
    if (i < 0) this.items.push(item);
    else this.items.splice(i, 0, item);
  }

  private op(op: Obj): void {
    switch (op.op) {
      case 'turn.upsert': {
        const { steps: _drop, ...header } = op.turn;
        const t = this.turns().find((x) => x.turnId === header.turnId);
        if (t) {
          const steps = t.steps;
          for (const k of Object.keys(t)) delete t[k];
          Object.assign(t, header, { steps });
        } else this.insertTurn({ ...header, steps: [] });
        return;
      }
      case 'step.upsert': {
        const { frames: _drop, ...header } = op.step;
        const s = this.step(op.turnId, header.stepId);
        const frames = s.frames;
        for (const k of Object.keys(s)) delete s[k];
        Object.assign(s, header, { frames });
        return;
      }
      case 'frame.upsert': {
        const s = this.step(op.turnId, op.stepId);
        const i = s.frames.findIndex((x: Obj) => x.frameId === op.frame.frameId);
        if (i >= 0) s.frames[i] = op.frame;
        else s.frames.push(op.frame);
        return;
      }
      case 'append':
        return this.append(op);
      case 'marker.upsert':
        return this.upsertItem(op.item, 'markerId', op.beforeTurn);
      case 'taskref.upsert':
        return this.upsertItem(op.item, 'refId', op.beforeTurn);
      case 'task.upsert':
        this.tasks.set(op.task.taskId, op.task);
        return;
      case 'interaction.upsert':
        this.interactions.set(op.interaction.interactionId, op.interaction);
        if (op.interaction.state === 'pending') this.pending.add(op.interaction.interactionId);
        else this.pending.delete(op.interaction.interactionId);
        return;
      case 'attachment.upsert':
        this.attachments.set(op.attachment.attachmentId, op.attachment);
        return;
      case 'todo.upsert':
        this.todos.set(op.todo.todoId, op.todo);
        return;
      case 'prompt.upsert':
        this.prompts.set(op.prompt.promptId, op.prompt);
        return;
      case 'meta.merge':
        return this.mergeMeta(op.meta);
      case 'items.remove':
        return this.remove(op.ids);
      case 'reset':
        throw new Error('reset op inside transcript.ops');
      default:
        throw new Error(`unknown op ${op.op}`);
    }
  }

  private append(op: Obj): void {
    if (op.target.type === 'task') {
      const t = this.tasks.get(op.target.taskId) ?? { taskId: op.target.taskId, kind: 'other', state: 'running', detached: false, outputTail: '' };
      // The offset is a position in the task's own outputTail, as in a frame's text.
      if (op.offset > t.outputTail.length) throw new Error(`append gap: offset ${op.offset} beyond the task's ${t.outputTail.length}`);
      const local = t.outputTail.slice(op.offset);
      if (!local.startsWith(op.text)) {
        if (!op.text.startsWith(local)) throw new Error('append gap: mismatching overlap in the task output');
        t.outputTail = t.outputTail.slice(0, op.offset) + op.text;
      }
      this.tasks.set(t.taskId, t);
      return;
    }
    const t = this.turns().find((x) => x.turnId === op.target.turnId);
    const s = t?.steps.find((x: Obj) => x.stepId === op.target.stepId);
    const f = s?.frames.find((x: Obj) => x.frameId === op.target.frameId);
    if (!f || (f.kind !== 'text' && f.kind !== 'thinking')) throw new Error(`append gap: no text frame ${op.target.frameId}`);
    if (op.offset > f.text.length) throw new Error(`append gap: offset ${op.offset} beyond ${f.text.length}`);
    const local = f.text.slice(op.offset);
    if (local.startsWith(op.text)) return;
    if (!op.text.startsWith(local)) throw new Error('append gap: mismatching overlap');
    f.text = f.text.slice(0, op.offset) + op.text;
  }

  private mergeMeta(m: Obj): void {
    for (const [k, val] of Object.entries(m)) {
      if (k === 'goal') {
        if (val === null) delete this.meta.goal;
        else this.meta.goal = val;
      } else if (k === 'modes') {
        const modes = { ...(this.meta.modes ?? {}) };
        for (const [mk, mv] of Object.entries(val as Obj)) {
          if (mv === null) delete modes[mk];
          else modes[mk] = mv;
        }
        this.meta.modes = modes;
      } else if (k === 'agent') {
        this.meta.agent = { ...(this.meta.agent ?? {}), ...(val as Obj) };
      } else {
        this.meta[k] = val;
      }
    }
  }

  private remove(ids: string[]): void {
    const gone = new Set(ids);
    const calls = new Set<string>();
    for (const t of this.turns()) {
      if (!gone.has(t.turnId)) continue;
      for (const s of t.steps) for (const f of s.frames) if (f.kind === 'tool') calls.add(f.toolCallId);
    }
    this.items = this.items.filter((x) => !gone.has(x.turnId ?? x.markerId ?? x.refId));
    for (const [id, it] of this.interactions) {
      if (it.toolCallId && calls.has(it.toolCallId)) {
        this.interactions.delete(id);
        this.pending.delete(id);
      }
    }
  }

  /** The state in GET /transcript's terms, collections sorted by id (their order is not part of the contract). */
  view(): Obj {
    const sorted = (m: Map<string, Obj>) => [...m.keys()].sort().map((k) => m.get(k));
    return {
      items: this.items, tasks: sorted(this.tasks), interactions: sorted(this.interactions), attachments: sorted(this.attachments),
      todos: sorted(this.todos), prompts: sorted(this.prompts), meta: this.meta, pending_interactions: [...this.pending].sort(),
    };
  }
}

/** GET /transcript data in the same terms as ReferenceTranscript.view(). */
export function restView(d: Obj): Obj {
  const sorted = (list: Obj[] | undefined, key: string) => [...(list ?? [])].sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0));
  return {
    items: d.items, tasks: sorted(d.tasks, 'taskId'), interactions: sorted(d.interactions, 'interactionId'),
    attachments: sorted(d.attachments, 'attachmentId'), todos: sorted(d.todos, 'todoId'), prompts: sorted(d.prompts, 'promptId'), meta: d.meta,
    pending_interactions: [...d.pending_interactions].sort(),
  };
}
