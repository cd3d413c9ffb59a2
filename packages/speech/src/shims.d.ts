// The echogarden WASM packages ship no type declarations; these are the parts this package uses.
declare module '@echogarden/espeak-ng-emscripten' {
  const init: () => Promise<any>;
  export default init;
}
declare module '@echogarden/sonic-wasm' {
  const init: () => Promise<any>;
  export default init;
}
declare module '@echogarden/speex-resampler-wasm' {
  const init: () => Promise<any>;
  export default init;
}
declare module '@echogarden/gnuspeech-wasm/wasm/gnuspeech.js' {
  const init: () => Promise<any>;
  export default init;
}
declare module '@echogarden/fvad-wasm' {
  const init: () => Promise<any>;
  export default init;
}
declare module '@echogarden/rnnoise-wasm' {
  const init: () => Promise<any>;
  export default init;
}
