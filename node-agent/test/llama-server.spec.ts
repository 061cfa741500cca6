import { splitArgs } from '../src/llama-server';

describe('llama-server split arguments', () => {
  it('the coordinator’s layers stay on its CPU; the shards get theirs, the output layer counted on the last', () => {
    // 12 layers as 4/4/4: 13 "layers" with the output one, 4 on the CPU, 4 and 4+1 on the two RPC devices.
    expect(splitArgs([4, 4, 4])).toEqual(['-ngl', '9', '--tensor-split', '4,5']);
    expect(splitArgs([0, 6, 6])).toEqual(['-ngl', '13', '--tensor-split', '6,7']);
    expect(splitArgs([10, 2])).toEqual(['-ngl', '3', '--tensor-split', '3']);
  });
});
