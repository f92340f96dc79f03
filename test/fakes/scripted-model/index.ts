// The scripted model is product code now (`npm run demo` runs on it); tests keep this import path.
export * from '../../../harness/demo/scripted-model';
