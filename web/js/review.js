// The review view: one row per tool call (its pre- and post-event joined
// by toolUseId), turns under their prompts, sub-agents nested, gaps named
// by toolUseId, and filters. The same reading as logbook-review
// (internal/review), written apart from it. Everything a record says is
// shown as text, never as markup; long values are cut on screen and given
// whole in the element's title (shown on hover).
(function (lb) {
  'use strict';
  const { K, get } = lb.json;

  const PRE = new Set(['PreToolUse', 'logbook-wrap.start']);
  const POST = new Set(['PostToolUse', 'PostToolUseFailure', 'logbook-wrap.end']);

  function str(obj, key) {
    const v = get(obj, key);
    return typeof v === 'string' ? v : '';
  }
  function strs(v) {
    return v && v.t === K.ARR ? v.items.map((x) => (typeof x === 'string' ? x : '')) : [];
  }
  function num(obj, key) {
    const v = get(obj, key);
    return v && v.t === K.NUM ? Number(v.lit) : null;
  }

  // stepOf reads what a review needs from a parsed step, its data's
  // members in one pass. A call's summary is not kept (its row is made
  // of its fields); other events show theirs.
  function stepOf(st) {
    const d = lb.shape.field(st, 'data');
    let event = '', tool = '', id = '', command = '', path = '', paths = [], pattern = '', url = '', subagentType = '';
    let agent = '', agentType = '', turnId = '', exit = null, duration = null, batchIds = [], batchTools = [];
    let decision = '', rule = '', reason = '', enforced = false, error = '', gated = '', approver = '', actorV;
    const keys = d.keys, vals = d.vals;
    for (let k = 0; k < keys.length; k++) {
      const v = vals[k], s = typeof v === 'string' ? v : '';
      switch (keys[k]) {
        case 'event': event = s; break;
        case 'tool': tool = s; break;
        case 'toolUseId': id = s; break;
        case 'command': command = s; break;
        case 'path': path = s; break;
        case 'paths': if (v.t === K.ARR) paths = v.items.filter((x) => typeof x === 'string'); break;
        case 'pattern': pattern = s; break;
        case 'url': url = s; break;
        case 'subagentType': subagentType = s; break;
        case 'agentId': agent = s; break;
        case 'agentType': agentType = s; break;
        case 'turnId': turnId = s; break;
        case 'exitCode': if (v.t === K.NUM) exit = Number(v.lit); break;
        case 'durationMs': if (v.t === K.NUM) duration = Number(v.lit); break;
        case 'toolUseIds': batchIds = strs(v); break;
        case 'tools': batchTools = strs(v); break;
        case 'decision': decision = s; break;
        case 'rule': rule = s; break;
        case 'reason': reason = s; break;
        case 'enforced': enforced = v.t === K.TRUE; break;
        case 'error': error = s; break;
        case 'gated': gated = s; break;
        case 'approver': approver = s; break;
        case 'logbook.actor': actorV = v; break;
      }
    }
    const actor = actorV === undefined ? undefined : lb.actorOf(d);
    return {
      seq: Number(lb.shape.field(st, 'seq').lit), at: lb.shape.field(st, 'at'), kind: lb.shape.field(st, 'kind'),
      summary: PRE.has(event) || POST.has(event) ? '' : lb.shape.field(st, 'summary'),
      event, tool, id, command, path, paths,
      detail: pattern || url || subagentType,
      agent, agentType, turnId, exit, duration, batchIds, batchTools,
      actor: actorText(actor), // each call says who sent it
      actorOf: actor, // the session's header lists them (app.js)
      gate: event === 'PolicyGate' ? { decision, rule, reason, enforced, error, gated, approver } : null,
    };
  }

  // A worker of the split check (js/split.js) sends its steps' review
  // fields (stepOf's) as JSON text, each step an array (pack): a number
  // whose bits say which fields are as in the step before (mostly: a
  // call's pre- and post-event share its tool, id and path) and which
  // lists are empty (or null, or undefined), then the other fields'
  // values, in stepOf's order; the page makes the objects again (unpack).
  // seq is not sent: the check has found it to be the step's index.
  // Each field is named in the code: a loop over names was a third
  // slower.
  const NONE = {}; // equal to no field's value
  const FIRST = { at: NONE, kind: NONE, summary: NONE, event: NONE, tool: NONE, id: NONE, command: NONE, path: NONE, detail: NONE,
    agent: NONE, agentType: NONE, turnId: NONE, exit: NONE, duration: NONE, actor: NONE };
  const none = (v) => v === undefined || v === null || (Array.isArray(v) && v.length === 0);
  function pack(steps) {
    const out = new Array(steps.length);
    let p = FIRST;
    for (let i = 0; i < steps.length; i++) {
      const s = steps[i], a = [0];
      let m = 0;
      if (s.at === p.at) m |= 1; else a.push(s.at);
      if (s.kind === p.kind) m |= 2; else a.push(s.kind);
      if (s.summary === p.summary) m |= 4; else a.push(s.summary);
      if (s.event === p.event) m |= 8; else a.push(s.event);
      if (s.tool === p.tool) m |= 16; else a.push(s.tool);
      if (s.id === p.id) m |= 32; else a.push(s.id);
      if (s.command === p.command) m |= 64; else a.push(s.command);
      if (s.path === p.path) m |= 128; else a.push(s.path);
      if (s.detail === p.detail) m |= 256; else a.push(s.detail);
      if (s.agent === p.agent) m |= 512; else a.push(s.agent);
      if (s.agentType === p.agentType) m |= 1024; else a.push(s.agentType);
      if (s.turnId === p.turnId) m |= 2048; else a.push(s.turnId);
      if (s.exit === p.exit) m |= 4096; else a.push(s.exit);
      if (s.duration === p.duration) m |= 8192; else a.push(s.duration);
      if (s.actor === p.actor) m |= 16384; else a.push(s.actor);
      if (none(s.paths)) m |= 32768; else a.push(s.paths);
      if (none(s.batchIds)) m |= 65536; else a.push(s.batchIds);
      if (none(s.batchTools)) m |= 131072; else a.push(s.batchTools);
      if (none(s.actorOf)) m |= 262144; else a.push(s.actorOf);
      if (none(s.gate)) m |= 524288; else a.push(s.gate);
      a[0] = m;
      out[i] = a;
      p = s;
    }
    return out;
  }
  // unpack makes the objects of pack's arrays again, each whole (one
  // shape for all, quickly made): their members are stepOf's, in order
  // (the split check's test compares what it makes with stepOf's own);
  // first is the first one's seq.
  function unpack(packed, first) {
    const out = new Array(packed.length);
    let at, kind, summary, event, tool, id, command, path, detail, agent, agentType, turnId, exit, duration, actor;
    for (let i = 0; i < packed.length; i++) {
      const a = packed[i], m = a[0];
      let j = 1;
      if (!(m & 1)) at = a[j++];
      if (!(m & 2)) kind = a[j++];
      if (!(m & 4)) summary = a[j++];
      if (!(m & 8)) event = a[j++];
      if (!(m & 16)) tool = a[j++];
      if (!(m & 32)) id = a[j++];
      if (!(m & 64)) command = a[j++];
      if (!(m & 128)) path = a[j++];
      if (!(m & 256)) detail = a[j++];
      if (!(m & 512)) agent = a[j++];
      if (!(m & 1024)) agentType = a[j++];
      if (!(m & 2048)) turnId = a[j++];
      if (!(m & 4096)) exit = a[j++];
      if (!(m & 8192)) duration = a[j++];
      if (!(m & 16384)) actor = a[j++];
      const paths = m & 32768 ? [] : a[j++];
      const batchIds = m & 65536 ? [] : a[j++];
      const batchTools = m & 131072 ? [] : a[j++];
      const actorOf = m & 262144 ? undefined : a[j++];
      const gate = m & 524288 ? null : a[j++];
      out[i] = {
        seq: first + i, at, kind, summary, event, tool, id, command, path, paths, detail, agent, agentType, turnId, exit, duration,
        batchIds, batchTools, actor, actorOf, gate,
      };
    }
    return out;
  }
  // packJSON is a batch of stepOf's objects as JSON text, unpackJSON
  // the objects again.
  function packJSON(steps) {
    return JSON.stringify([steps.length ? steps[0].seq : 0, pack(steps)]);
  }
  function unpackJSON(text) {
    const [first, packed] = JSON.parse(text);
    return unpack(packed, first);
  }

  // actorText says who sent a step's event, from its logbook.actor
  // (lb.actorOf, internal/fleet's ActorOf): the attested identity, then
  // what the client only claimed; '' for none, the reason for a
  // malformed member.
  function actorText(a) {
    if (a === undefined) return '';
    if (typeof a === 'string') return '⚠ ' + a;
    let t = a.by === 'token' ? "the server's shared token" : (a.subject || '?') + ' in ' + (a.tenant || '?') + ' (' + a.by + ')';
    if (a.claimed) t += ', claims ' + a.claimed + ' (asserted)';
    return t;
  }

  function subject(s) {
    if (s.command) return s.command;
    if (s.paths.length > 1) return s.paths.join(', ');
    return s.path || s.detail;
  }

  // build joins the steps into calls, turns and sub-agents; picked, if
  // given, is stepOf of each step already (lb.check's pick).
  function build(rawSteps, picked) {
    const steps = picked || Array.from(rawSteps, stepOf); // an array, or a checked record's Steps
    const calls = new Map(), openCalls = new Map(), order = [];
    let started = false, harness = false, byId = false, start = '', end = '';
    // One pass over every step where it can be: a long record's steps
    // are many, and each pass over them starts slow (a fresh page's code
    // is not yet compiled). The few steps later passes need are kept.
    const gates = [], batches = [];
    let dense = true, i = 0;
    for (const s of steps) {
      if (s.seq !== i++) dense = false;
      if (s.event && !s.event.startsWith('logbook')) harness = true;
      if (s.event === 'SessionStart') started = true;
      if (s.agent && s.event !== 'SubagentStart' && s.event !== 'SubagentStop') byId = true;
      if (!start || s.at < start) start = s.at;
      if (!end || s.at > end) end = s.at;
      if (s.gate) gates.push(s);
      if (s.batchIds.length) batches.push(s);
      const pre = PRE.has(s.event), post = POST.has(s.event);
      if (!pre && !post) continue;
      let c = s.id ? calls.get(s.id) : undefined;
      // No id (Gemini CLI, Copilot CLI): a post-event joins the oldest
      // open pre-event of the same tool.
      if (!s.id && post && (openCalls.get(s.tool) || []).length) c = openCalls.get(s.tool).shift();
      if (!c) {
        c = { id: s.id, tool: s.tool, kind: s.kind, subject: subject(s), start: s.at, end: '', pre: [], post: [],
          duration: null, exit: null, failed: false, gaps: [], pos: s.seq, agent: '' };
        if (s.id) calls.set(s.id, c);
        else if (pre) openCalls.set(s.tool, (openCalls.get(s.tool) || []).concat([c]));
        order.push(c);
      }
      if (!c.subject) c.subject = subject(s);
      if (!c.actor) c.actor = s.actor;
      if (pre) {
        c.pre.push(s.seq);
        if (s.at < c.start) c.start = s.at;
      } else {
        c.post.push(s.seq);
        if (c.post.length === 1) {
          c.end = s.at;
          c.duration = s.duration;
          c.exit = s.exit;
          c.failed = s.event === 'PostToolUseFailure' || (s.exit !== null && s.exit !== 0);
        }
      }
    }
    // A call an enforced gate step denied never ran: no post-event is no
    // gap (internal/gaps.Denies).
    const denied = new Set();
    for (const s of gates) {
      const g = s.gate;
      if (g && s.id && g.enforced && g.decision === 'deny' && (g.gated === 'PreToolUse' || g.gated === 'PermissionRequest')) denied.add(s.id);
    }
    const gaps = { unfinished: [], dupPre: [], dupPost: [], orphaned: [], denied: [], missingStart: harness && !started };
    for (const c of order) {
      if (!c.id) {
        // Without an id nothing says which events belong together: no gap is claimed.
        if (c.duration === null && c.pre.length && c.end) c.duration = Date.parse(c.end) - Date.parse(c.start);
        continue;
      }
      if (!c.post.length && denied.has(c.id)) { c.note = 'not run: denied by the organization policy'; c.denied = true; gaps.denied.push(c.id); }
      else if (!c.post.length) { c.gaps.push('unfinished'); if (c.id) gaps.unfinished.push(c.id); }
      else if (!c.pre.length) { c.gaps.push('orphaned: no pre-event'); if (c.id) gaps.orphaned.push(c.id); }
      if (c.post.length && denied.has(c.id)) { c.note = 'RAN although denied by the organization policy'; c.deniedRan = true; }
      if (c.pre.length > 1) { c.gaps.push('duplicated pre'); gaps.dupPre.push(c.id); }
      if (c.post.length > 1) { c.gaps.push('duplicated post'); gaps.dupPost.push(c.id); }
      if (c.duration === null && c.pre.length && c.end) c.duration = Date.parse(c.end) - Date.parse(c.start);
    }
    // A gate step's decision goes on its call's row (docs/policy.md §6).
    const gated = new Set();
    for (const s of gates) {
      const c = s.id ? calls.get(s.id) : undefined;
      // A call held for an approver is decided by its resolution, the
      // call's next gate step (docs/approvals.md): that is its gate.
      if (c && (!c.gate || (c.gate.decision === 'hold' && s.gate.decision !== 'hold'))) { c.gate = Object.assign({ actor: s.actor }, s.gate); gated.add(s.seq); }
    }
    // Calls that only a PostToolBatch names: the model asked for them, and
    // no hook ever ran for them.
    for (const s of batches) {
      s.batchIds.forEach((id, k) => {
        if (!id || calls.has(id)) return;
        const c = { id, tool: s.batchTools[k] || '', kind: 'tool_call', subject: '', start: s.at, end: '', pre: [], post: [],
          duration: null, exit: null, failed: false, gaps: [], pos: s.seq, agent: '', note: 'not run: no hook events, named only by PostToolBatch' };
        calls.set(id, c);
        order.push(c);
      });
    }
    // Sub-agents: the step names its agent, or lies between the agent's
    // start and stop while no other sub-agent runs. Position decides only
    // when no sub-agent step names its agent: where they do, a step that
    // names none is the main agent's (a background sub-agent runs while
    // the main agent goes on), as internal/review decides.
    const agents = new Map(), agentOf = new Map();
    let open = [];
    // Turns: a prompt of the main agent's begins one.
    const turns = [{ prompt: null, items: [] }];
    // Tables by seq: arrays where the seqs are the steps' indexes (an
    // accepted record's are), a Map else; a Map of 100,000 steps took a
    // long record's review a quarter of its time.
    const turnOf = dense ? new Int32Array(steps.length) : new Map(), byTurnId = new Map();
    const setTurn = dense ? (seq, t) => { turnOf[seq] = t; } : (seq, t) => { turnOf.set(seq, t); };
    const turnAt = dense ? (seq) => turnOf[seq] : (seq) => turnOf.get(seq);
    for (const s of steps) {
      if (s.event === 'SubagentStart') {
        if (!agents.has(s.agent)) agents.set(s.agent, { id: s.agent, type: s.agentType, start: s.at, end: '', items: [], calls: 0, placed: false });
        open.push(agents.get(s.agent));
        agentOf.set(s.seq, s.agent);
      } else if (s.event === 'SubagentStop') {
        const a = agents.get(s.agent);
        if (a) { a.end = s.at; open = open.filter((o) => o !== a); }
        agentOf.set(s.seq, s.agent);
      } else if (s.agent) {
        // A sub-agent whose SubagentStart was not recorded still gets its group.
        if (!agents.has(s.agent)) agents.set(s.agent, { id: s.agent, type: s.agentType, start: s.at, end: '', items: [], calls: 0, placed: false });
        agentOf.set(s.seq, s.agent);
      }
      else if (!byId && open.length === 1 && s.event !== 'UserPromptSubmit') agentOf.set(s.seq, open[0].id);
      if (s.event === 'UserPromptSubmit' && !agentOf.get(s.seq)) {
        turns.push({ prompt: s, items: [], number: turns.length }); // the session's own number, kept by filters
        if (s.turnId) byTurnId.set(s.turnId, turns.length - 1);
      }
      setTurn(s.seq, turns.length - 1);
    }
    const all = order.map((c) => { c.agent = agentOf.get(c.pos) || ''; return { pos: c.pos, call: c }; });
    for (const s of steps) {
      // A step that names its prompt's turn goes there, even when
      // parallel hooks appended it after the next prompt.
      if (s.turnId && byTurnId.has(s.turnId)) setTurn(s.seq, byTurnId.get(s.turnId));
      if (PRE.has(s.event) || POST.has(s.event) || gated.has(s.seq) || (s.event === 'UserPromptSubmit' && !agentOf.get(s.seq))) continue;
      if (s.event === 'SubagentStop' && agents.has(s.agent)) continue; // it closes its group; one of no known sub-agent stays an event, as internal/review shows it
      all.push({ pos: s.seq, event: s });
    }
    all.sort((a, b) => a.pos - b.pos);
    for (const it of all) {
      const t = turns[turnAt(it.pos)];
      const a = agents.get(agentOf.get(it.pos) || '');
      if (it.event && it.event.event === 'SubagentStart') {
        if (a && !a.placed) { a.placed = true; t.items.push({ agent: a }); }
        continue;
      }
      if (a) {
        if (!a.placed) { a.placed = true; t.items.push({ agent: a }); }
        if (it.call) a.calls++;
        a.items.push(it);
      } else t.items.push(it);
    }
    if (!turns[0].items.length && turns.length > 1) turns.shift();
    const seqs = dense ? null : new Map(steps.map((s) => [s.seq, s]));
    const bySeq = (seq) => (dense ? steps[seq] : seqs.get(seq));
    const byKind = {}, files = new Map(), failed = [];
    let toolMs = 0;
    for (const c of order) {
      byKind[c.kind] = (byKind[c.kind] || 0) + 1;
      if (c.failed) failed.push(c);
      if (c.duration !== null) toolMs += c.duration;
      if (c.kind === 'exec' || c.kind === 'tool_call' || c.denied) continue; // a denied call touched no file
      const s = bySeq(c.pre.length ? c.pre[0] : c.post[0]);
      for (const p of s ? (s.paths.length ? s.paths : s.path ? [s.path] : []) : []) files.set(p, (files.get(p) || 0) + 1);
    }
    return { steps, turns, calls: order, byKind, files, failed, gaps, toolMs, agents: agents.size, start, end };
  }

  // The filters, as logbook-review --only.
  const FILTERS = {
    all: () => true,
    exec: (c) => c.kind === 'exec',
    edit: (c) => c.kind === 'edit' || c.kind === 'write',
    failed: (c) => c.failed,
    gaps: (c) => c.gaps.length > 0 || !!c.deniedRan,
  };

  function ms(n) {
    if (n === null || !isFinite(n)) return '—';
    if (n < 0) return '-' + ms(-n);
    if (n < 1000) return n + ' ms';
    if (n < 60000) return (n / 1000).toFixed(1) + ' s';
    if (n < 3600000) return Math.floor(n / 60000) + ' min ' + Math.floor(n % 60000 / 1000) + ' s';
    return Math.floor(n / 3600000) + ' h ' + Math.floor(n % 3600000 / 60000) + ' min';
  }

  // clock is an instant's time of day to the millisecond; its title the
  // whole instant (nanosecond instants are otherwise too wide).
  function clock(at) {
    const m = /T(\d\d:\d\d:\d\d)(\.\d{1,3})?/.exec(at || '');
    return m ? m[1] + (m[2] || '') : (at || '');
  }

  // render draws the review of an accepted record; r is build's, when
  // the page built it already.
  function render(v, box, el, r = build(v.steps)) {
    box.replaceChildren();
    box.append(el('h2', null, 'Review'));
    const dl = el('dl', 'summary');
    const row = (k, val, cls) => { dl.append(el('dt', null, k)); const dd = el('dd', cls, val); dl.append(dd); return dd; };
    const kinds = Object.entries(r.byKind).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([k, n]) => k + ' ' + n).join(', ');
    row('calls', r.calls.length + (kinds ? ': ' + kinds : ''));
    row('turns', String(r.turns.filter((t) => t.prompt).length) + (r.agents ? ', sub-agents ' + r.agents : ''));
    const span = r.start ? Date.parse(r.end) - Date.parse(r.start) : 0;
    const t = row('time', ms(span) + ' (tools ' + ms(r.toolMs) + ')');
    t.title = r.start + ' → ' + r.end;
    const files = [...r.files.keys()].sort();
    if (files.length) {
      const dd = row('files', files.length + ': ' + files.join(', '), 'clip');
      dd.title = files.join('\n');
    }
    const failedText = r.failed.map((c) => (c.subject || c.tool) + (c.exit !== null ? ' (exit ' + c.exit + ')' : '') + ' ' + c.id);
    const fd = row('failed', r.failed.length ? r.failed.length + ': ' + failedText.join(', ') : 'none', r.failed.length ? 'bad clip' : null);
    fd.title = failedText.join('\n');
    const g = r.gaps;
    const gapText = [];
    if (g.unfinished.length) gapText.push('unfinished: ' + g.unfinished.join(' '));
    if (g.dupPre.length) gapText.push('duplicated pre: ' + g.dupPre.join(' '));
    if (g.dupPost.length) gapText.push('duplicated post: ' + g.dupPost.join(' '));
    if (g.orphaned.length) gapText.push('orphaned (no pre-event): ' + g.orphaned.join(' '));
    if (g.missingStart) gapText.push('missing start (no SessionStart)');
    const gd = row('gaps', gapText.length ? gapText.join('; ') : 'none', gapText.length ? 'warn-text clip' : null);
    gd.title = gapText.join('\n');
    if (g.denied.length) {
      const dn = row('denied', g.denied.length + ' call(s) denied by the organization policy, not run (no gap): ' + g.denied.join(' '), 'bad clip');
      dn.title = g.denied.join('\n');
    }
    box.append(dl);

    const bar = el('div', 'filters');
    bar.setAttribute('role', 'group');
    bar.setAttribute('aria-label', 'show');
    const list = el('div', 'turns');
    let current = 'all', limit = BATCH;
    const more = el('button', 'more');
    more.type = 'button';
    more.addEventListener('click', () => { limit += BATCH; draw(); });
    const draw = () => {
      list.replaceChildren();
      let shown = 0, total = 0;
      for (const turn of r.turns) {
        if (shown >= limit) {
          total += countCalls(filterItems(turn.items, FILTERS[current]));
          continue;
        }
        const items = filterItems(turn.items, FILTERS[current]);
        if (current !== 'all' && !items.some((i) => i.call || i.agent)) continue;
        const sec = el('div', 'turn');
        const h = el('h3');
        if (turn.prompt) {
          h.append(el('span', 'turn-no', 'turn ' + turn.number), el('span', 'time', clock(turn.prompt.at)), el('span', 'clip', turn.prompt.summary));
          h.querySelector('.time').title = turn.prompt.at;
          h.lastChild.title = turn.prompt.summary;
        } else h.append(el('span', 'turn-no', 'before the first prompt'));
        sec.append(h);
        const k = drawItems(sec, items, el);
        shown += k;
        total += k;
        list.append(sec);
      }
      if (r.gaps.missingStart && (current === 'all' || current === 'gaps')) {
        list.prepend(el('p', 'session-gap', '⚠ missing start: no SessionStart event was recorded (lost, or the hooks were installed mid-session)'));
      }
      list.dataset.rows = String(shown);
      if (!list.children.length) list.append(el('p', 'empty', 'No call matches.'));
      more.hidden = shown >= total;
      more.textContent = 'Show more (' + (total - shown).toLocaleString('en') + ' calls not shown)';
    };
    for (const name of Object.keys(FILTERS)) {
      const b = el('button', 'filter', name === 'all' ? 'all (' + r.calls.length + ')' : name + ' (' + r.calls.filter(FILTERS[name]).length + ')');
      b.type = 'button';
      b.dataset.filter = name;
      b.setAttribute('aria-pressed', String(name === current));
      b.addEventListener('click', () => {
        current = name;
        limit = BATCH;
        for (const o of bar.children) o.setAttribute('aria-pressed', String(o.dataset.filter === name));
        draw();
      });
      bar.append(b);
    }
    box.append(bar, list, more);
    draw();
    return r;
  }

  // A long session is drawn a turn at a time until this many call rows
  // are on the page; "Show more" draws the next turns (a reviewer reads
  // the first screens; the page stays short and quick to draw).
  const BATCH = 200;

  function countCalls(items) {
    let n = 0;
    for (const it of items) {
      if (it.call) n++;
      else if (it.agent) n += countCalls(it.agent.items);
    }
    return n;
  }

  function filterItems(items, keep) {
    const out = [];
    for (const it of items) {
      if (it.call) { if (keep(it.call)) out.push(it); }
      else if (it.agent) {
        const sub = filterItems(it.agent.items, keep);
        if (sub.length || keep === FILTERS.all) out.push({ agent: Object.assign({}, it.agent, { items: sub }) });
      } else if (keep === FILTERS.all) out.push(it);
    }
    return out;
  }

  // drawItems appends the rows of items to parent; it returns the number
  // of call rows.
  function drawItems(parent, items, el) {
    let n = 0;
    for (const it of items) {
      if (it.call) { parent.append(callRow(it.call, el)); n++; }
      else if (it.agent) {
        const a = it.agent;
        const box = el('div', 'agent');
        const h = el('div', 'agent-head', 'sub-agent ' + a.id + (a.type ? ' (' + a.type + ')' : '') + ' · ' + a.calls + ' call(s)' + (a.end ? '' : ' · no SubagentStop'));
        h.title = a.start + (a.end ? ' → ' + a.end : '');
        box.append(h);
        n += drawItems(box, a.items, el);
        parent.append(box);
      } else if (it.event) {
        const e = el('div', 'event');
        const tm = el('span', 'time', clock(it.event.at));
        tm.title = it.event.at;
        const s = el('span', 'clip', it.event.summary);
        s.title = it.event.summary;
        e.append(tm, s);
        parent.append(e);
      }
    }
    return n;
  }

  function callRow(c, el) {
    const row = el('div', 'call kind-' + c.kind + (c.failed ? ' failed' : '') + (c.gaps.length ? ' gap' : ''));
    row.dataset.id = c.id;
    const tm = el('span', 'time', clock(c.start));
    tm.title = c.start + (c.end ? ' → ' + c.end : '');
    const kind = el('span', 'kind');
    kind.append(el('span', 'badge', c.kind));
    const dur = el('span', 'dur', ms(c.duration));
    const exit = el('span', 'exit', c.exit !== null ? 'exit ' + c.exit : c.failed ? 'failed' : '');
    const subj = (c.tool && c.kind !== 'exec' ? c.tool + ' ' : '') + (c.subject || (c.kind === 'exec' ? c.tool : ''));
    const what = el('span', 'what clip', subj || c.tool);
    what.title = subj || c.tool;
    const id = el('span', 'id clip', c.id);
    id.title = c.id + ' (seq ' + c.pre.concat(c.post).join(', ') + ')';
    row.append(tm, kind, dur, exit, what, id);
    for (const g of c.gaps) {
      const gl = el('span', 'gapnote', '⚠ ' + g + ': ' + c.id);
      gl.title = g;
      row.append(gl);
    }
    if (c.note) row.append(el('span', c.deniedRan ? 'callnote bad' : 'callnote', c.note));
    if (c.actor) {
      const al = el('span', 'actor clip', 'by ' + c.actor);
      al.title = 'who sent this call (logbook.actor): ' + c.actor;
      row.append(al);
    }
    if (c.gate) {
      const g = c.gate;
      let text = 'policy ' + g.decision + (g.rule ? ' (' + g.rule + ')' : '') + (g.enforced ? '' : ' [audit: not enforced]');
      if (g.reason && g.decision !== 'allow') text += ': ' + g.reason;
      if (g.approver && g.decision === 'allow') text += ': approved by ' + g.approver;
      if (g.actor && g.actor !== c.actor) text += ' — decided by ' + g.actor;
      if (g.error) text += ' [' + g.error + ']';
      const gl = el('span', 'gatenote gate-' + g.decision, text);
      gl.title = text;
      row.append(gl);
    }
    return row;
  }

  lb.review = { build, render, stepOf, packJSON, unpackJSON };
})(globalThis.logbook = globalThis.logbook || {});
