"use strict";
exports.ids = ["route-257620aac883"];
exports.modules = {
"./docs/site/zh/index.md"(__unused_rspack_module, __webpack_exports__, __webpack_require__) {
__webpack_require__.r(__webpack_exports__);
/* import */ var react_jsx_runtime__rspack_import_0 = __webpack_require__("./node_modules/react/jsx-runtime.js");
/* import */ var _mdx_js_react__rspack_import_1 = __webpack_require__("./node_modules/@mdx-js/react/lib/index.js");


function _createMdxContent(props) {
    const _components = {
        a: "a",
        h1: "h1",
        ...(0,_mdx_js_react__rspack_import_1/* .useMDXComponents */.R)(),
        ...props.components
    };
    return (0,react_jsx_runtime__rspack_import_0.jsxs)(_components.h1, {
        id: "你好",
        children: [
            (0,react_jsx_runtime__rspack_import_0.jsx)(_components.a, {
                className: "rp-header-anchor",
                "aria-hidden": "true",
                href: "#你好",
                children: "#"
            }),
            "你好"
        ]
    });
}
function MDXContent(props = {}) {
    const { wrapper: MDXLayout } = {
        ...(0,_mdx_js_react__rspack_import_1/* .useMDXComponents */.R)(),
        ...props.components
    };
    return MDXLayout ? (0,react_jsx_runtime__rspack_import_0.jsx)(MDXLayout, {
        ...props,
        children: (0,react_jsx_runtime__rspack_import_0.jsx)(_createMdxContent, {
            ...props
        })
    }) : _createMdxContent(props);
}
MDXContent.__RSPRESS_PAGE_META = {};
MDXContent.__RSPRESS_PAGE_META["zh%2Findex.md"] = {
    "toc": [],
    "title": "你好",
    "headingTitle": "你好",
    "frontmatter": {}
};

__webpack_require__.d(__webpack_exports__, {
}, {
  "default": MDXContent
});


},

};
;