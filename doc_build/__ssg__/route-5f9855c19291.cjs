"use strict";
exports.ids = ["route-5f9855c19291"];
exports.modules = {
"./docs/site/rspress.config.ts"(__unused_rspack_module, __webpack_exports__, __webpack_require__) {
__webpack_require__.r(__webpack_exports__);
/* import */ var node_path__rspack_import_0 = __webpack_require__("node:path");
/* import */ var node_path__rspack_import_0_default = /*#__PURE__*/__webpack_require__.n(node_path__rspack_import_0);
/* import */ var _rspress_core__rspack_import_1 = __webpack_require__("./node_modules/@rspress/core/dist/config/defineConfig.js");


// The documentation site. `npm run build` builds it for Polyvox's own /guide/; DOCS_BASE=/ (or any path) builds it
// for another static host. DOCS_OUT: where the files go (docs/site/dist by default, which the server serves).
const base = process.env.DOCS_BASE ?? '/guide/';
/* export default */ const __rspack_default_export = ((0,_rspress_core__rspack_import_1/* .defineConfig */.C)({
    root: node_path__rspack_import_0_default().join(__dirname, '.'),
    base: base.endsWith('/') ? base : `${base}/`,
    outDir: process.env.DOCS_OUT ?? node_path__rspack_import_0_default().join(__dirname, 'dist'),
    title: 'Polyvox',
    description: 'Text to speech and voice cloning you run yourself',
    lang: 'en',
    locales: [
        {
            lang: 'en',
            label: 'English',
            title: 'Polyvox',
            description: 'Text to speech and voice cloning you run yourself'
        },
        {
            lang: 'zh',
            label: '简体中文',
            title: 'Polyvox',
            description: '可自行部署的语音合成与声音克隆平台'
        }
    ]
}));

__webpack_require__.d(__webpack_exports__, {
}, {
  "default": __rspack_default_export
});


},
"./node_modules/@rspress/core/dist/config/defineConfig.js"(__unused_rspack_module, __webpack_exports__, __webpack_require__) {
function defineConfig(config) {
    return config;
}


__webpack_require__.d(__webpack_exports__, {
}, {
  C: defineConfig
});


},

};
;