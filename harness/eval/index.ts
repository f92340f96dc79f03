export { startEval, type EvalOptions, type EvalSession } from './run-eval';
export { parseModelSpec, modelLabel, type ModelSpec } from './model-spec';
export { evalCaseSchema, evalReportSchema, judge, totalsOf, type EvalCase, type EvalReport } from './scorecard';
export { caseLine, totalsText, toEvalJUnit, writeEvalFiles } from './report';
