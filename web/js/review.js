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

  // stepOf reads what a review needs from a parsed step.
  function stepOf(st) {
    const d = get(st, 'data');
    const paths = get(d, 'paths');
    const actor = lb.actorOf(d);
    return {
      seq: Number(get(st, 'seq').lit), at: get(st, 'at'), kind: get(st, 'kind'), summary: get(st, 'summary'),
      event: str(d, 'event'), tool: str(d, 'tool'), id: str(d, 'toolUseId'), command: str(d, 'command'),
      path: str(d, 'path'), paths: paths && paths.t === K.ARR ? paths.items.filter((x) => typeof x === 'string') : [],
      detail: str(d, 'pattern') || str(d, 'url') || str(d, 'subagentType'),
      agent: str(d, 'agentId'), agentType: str(d, 'agentType'), turnId: str(d, 'turnId'),
      exit: num(d, 'exitCode'), duration: num(d, 'durationMs'),
      batchIds: strs(get(d, 'toolUseIds')), batchTools: strs(get(d, 'tools')),
      inputs: get(st, 'inputsSha256').items, outputs: get(st, 'outputsSha256').items,
      actor: actorText(actor), // each call says who sent it
      actorOf: actor, // the session's header lists them (app.js)
      gate: str(d, 'event') === 'PolicyGate' ? { decision: str(d, 'decision'), rule: str(d, 'rule'), reason: str(d, 'reason'),
        enforced: get(d, 'enforced') !== undefined && get(d, 'enforced').t === K.TRUE, error: str(d, 'error'), gated: str(d, 'gated'),
        approver: str(d, 'approver') } : null,
    };
  }

  // FIELDS are stepOf's, in its order: a worker of the split check
  // (js/split.js) sends each step's as an array of their values (pack),
  // JSON text without the names, and the page makes the object again
  // (unpack); actorOf, where undefined, travels as null.
  const FIELDS = ['seq', 'at', 'kind', 'summary', 'event', 'tool', 'id', 'command', 'path', 'paths', 'detail', 'agent', 'agentType',
    'turnId', 'exit', 'duration', 'batchIds', 'batchTools', 'inputs', 'outputs', 'actor', 'actorOf', 'gate'];
  const ACTOR_OF = FIELDS.indexOf('actorOf');
  function pack(s) {
    return FIELDS.map((k) => s[k]);
  }
  // unpack writes the object whole (one shape for all, quickly made):
  // its members are FIELDS, in order (the split check's test compares
  // what it makes with stepOf's own).
  function unpack(a) {
    return {
      seq: a[0], at: a[1], kind: a[2], summary: a[3], event: a[4], tool: a[5], id: a[6], command: a[7], path: a[8], paths: a[9],
      detail: a[10], agent: a[11], agentType: a[12], turnId: a[13], exit: a[14], duration: a[15], batchIds: a[16], batchTools: a[17],
      inputs: a[18], outputs: a[19], actor: a[20], actorOf: a[ACTOR_OF] === null ? undefined : a[ACTOR_OF], gate: a[22],
    };
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
    let started = false, harness = false;
    for (const s of steps) {
      if (s.event && !s.event.startsWith('logbook')) harness = true;
      if (s.event === 'SessionStart') started = true;
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
    for (const s of steps) {
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
    for (const s of steps) {
      const c = s.gate && s.id ? calls.get(s.id) : undefined;
      // A call held for an approver is decided by its resolution, the
      // call's next gate step (docs/approvals.md): that is its gate.
      if (c && (!c.gate || (c.gate.decision === 'hold' && s.gate.decision !== 'hold'))) { c.gate = Object.assign({ actor: s.actor }, s.gate); gated.add(s.seq); }
    }
    // Calls that only a PostToolBatch names: the model asked for them, and
    // no hook ever ran for them.
    for (const s of steps) {
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
    const byId = steps.some((s) => s.agent && s.event !== 'SubagentStart' && s.event !== 'SubagentStop');
    const agents = new Map(), agentOf = new Map();
    let open = [];
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
    }
    const turns = [{ prompt: null, items: [] }];
    const turnOf = new Map(), byTurnId = new Map();
    for (const s of steps) {
      if (s.event === 'UserPromptSubmit' && !agentOf.get(s.seq)) {
        turns.push({ prompt: s, items: [], number: turns.length }); // the session's own number, kept by filters
        if (s.turnId) byTurnId.set(s.turnId, turns.length - 1);
      }
      turnOf.set(s.seq, turns.length - 1);
    }
    // A step that names its prompt's turn goes there, even when parallel
    // hooks appended it after the next prompt.
    for (const s of steps) if (s.turnId && byTurnId.has(s.turnId)) turnOf.set(s.seq, byTurnId.get(s.turnId));
    const all = order.map((c) => { c.agent = agentOf.get(c.pos) || ''; return { pos: c.pos, call: c }; });
    for (const s of steps) {
      if (PRE.has(s.event) || POST.has(s.event) || gated.has(s.seq) || (s.event === 'UserPromptSubmit' && !agentOf.get(s.seq))) continue;
      if (s.event === 'SubagentStop' && agents.has(s.agent)) continue; // it closes its group; one of no known sub-agent stays an event, as internal/review shows it
      all.push({ pos: s.seq, event: s });
    }
    all.sort((a, b) => a.pos - b.pos);
    for (const it of all) {
      const t = turns[turnOf.get(it.pos)];
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
    const bySeq = new Map(steps.map((s) => [s.seq, s]));
    const byKind = {}, files = new Map(), failed = [];
    let toolMs = 0;
    for (const c of order) {
      byKind[c.kind] = (byKind[c.kind] || 0) + 1;
      if (c.failed) failed.push(c);
      if (c.duration !== null) toolMs += c.duration;
      if (c.kind === 'exec' || c.kind === 'tool_call' || c.denied) continue; // a denied call touched no file
      const s = bySeq.get(c.pre.length ? c.pre[0] : c.post[0]);
      for (const p of s ? (s.paths.length ? s.paths : s.path ? [s.path] : []) : []) files.set(p, (files.get(p) || 0) + 1);
    }
    let start = '', end = '';
    for (const s of steps) {
      if (!start || s.at < start) start = s.at;
      if (!end || s.at > end) end = s.at;
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

  lb.review = { build, render, stepOf, pack, unpack };
})(globalThis.logbook = globalThis.logbook || {});
