// Imports that still run against the layers, each to be paid by moving what it needs to the layer
// that owns it. The list only shrinks: a new import against the layers fails lint.
export const LAYER_DEBTS = [
];
