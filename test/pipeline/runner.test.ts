import t from 'tap';
import { runStages, type Stage } from '../../daemon/pipeline/runner.js';
import { pass, type Refusal } from '../../daemon/pipeline/verdict.js';

interface State {
  readonly seen?: readonly string[];
}

const ran: string[] = [];
const passing = (name: string): Stage<number, State, Refusal> => ({
  name,
  run(_ctx, state) {
    ran.push(name);
    return pass({ seen: [...(state.seen ?? []), name] });
  },
});
const refusing: Stage<number, State, Refusal> = {
  name: 'refusing',
  run(ctx) {
    ran.push('refusing');
    return { ok: false, code: 'NO', detail: ctx };
  },
};

t.test('every stage passing: forward, with what each found, in order', async (t) => {
  ran.length = 0;
  const d = runStages([passing('a'), passing('b')], 7);
  t.same(d, { kind: 'forward', state: { seen: ['a', 'b'] } });
  t.same(runStages([], 7), { kind: 'forward', state: {} }, 'no stages: nothing found, nothing refused');
});

t.test('the first refusal answers, with the state the stages before it built; later stages do not run', async (t) => {
  ran.length = 0;
  const d = runStages([passing('a'), refusing, passing('c')], 7);
  t.same(d, { kind: 'refuse', stage: 'refusing', refusal: { ok: false, code: 'NO', detail: 7 }, state: { seen: ['a'] } });
  t.same(ran, ['a', 'refusing']);
});
