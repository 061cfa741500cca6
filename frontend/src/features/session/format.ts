// Moved to components/format.ts; this re-export goes once the last importers (shell, nodes) use that module.
export { formatGlob } from '../../components/format';
