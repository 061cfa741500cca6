import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';

// findBy*/waitFor wait up to 5 s (the default 1 s is short on a loaded 2-core CI machine).
configure({ asyncUtilTimeout: 5_000 });
