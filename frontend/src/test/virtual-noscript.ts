/** jest stand-in for `virtual:glob-noscript/<key>`. */
export default '';
