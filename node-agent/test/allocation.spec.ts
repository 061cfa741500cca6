import { threadsFor } from '@glob/engine/threads';
import { DEFAULT_ALLOCATION, modelsThatFit, plan, sameAllocation } from '../src/allocation';

const GB = 1024 ** 3;

describe('node allocation', () => {
  it('threads = max(1, round(cores × cpu % / 100)); --threads overrides', () => {
    expect(threadsFor(8, 50)).toBe(4);
    expect(threadsFor(2, 50)).toBe(1);
    expect(threadsFor(2, 10)).toBe(1);
    expect(threadsFor(1, 10)).toBe(1);
    expect(threadsFor(16, 80)).toBe(13);
    expect(threadsFor(6, 25)).toBe(2); // 1.5 rounds up
    expect(threadsFor(8, 50, 1)).toBe(1);
  });

  it('loads only the models whose file fits in memory % of the machine, and says why the others are skipped', () => {
    const models = [
      { id: 'big', path: '/m/big.gguf', bytes: 40 * GB },
      { id: 'small', path: '/m/small.gguf', bytes: 1 * GB },
      { id: 'edge', path: '/m/edge.gguf', bytes: Math.floor(16 * GB * 0.4) },
    ];
    const choice = modelsThatFit(models, 16 * GB, 40);
    expect(choice.load.map((m) => m.id)).toEqual(['small', 'edge']);
    expect(choice.skipped).toEqual([{ model: models[0], reason: "its file (40.0 GB) is larger than 40 % of this machine's memory (6.4 GB)" }]);
    expect(modelsThatFit(models, 16 * GB, 20).load.map((m) => m.id)).toEqual(['small']);
  });

  it('a plan: threads from CPU %, GPU only when one is present and its share is above 0', () => {
    const models = [{ id: 'tiny', path: '/m/t.gguf', bytes: 9e6 }];
    expect(plan(DEFAULT_ALLOCATION, { cores: 8, memoryBytes: 8 * GB, gpu: null }, models)).toMatchObject({ threads: 4, gpu: false, load: models });
    expect(plan(DEFAULT_ALLOCATION, { cores: 8, memoryBytes: 8 * GB, gpu: 'RTX 4090' }, models)).toMatchObject({ gpu: true, gpuShare: 0.6 });
    expect(plan({ ...DEFAULT_ALLOCATION, gpu_percent: 90 }, { cores: 8, memoryBytes: 8 * GB, gpu: 'RTX 4090' }, models).gpuShare).toBe(0.9);
    expect(plan({ ...DEFAULT_ALLOCATION, gpu_percent: 0 }, { cores: 8, memoryBytes: 8 * GB, gpu: 'RTX 4090' }, models).gpu).toBe(false);
    expect(plan({ ...DEFAULT_ALLOCATION, cpu_percent: 80 }, { cores: 8, memoryBytes: 8 * GB, gpu: null }, models, 2).threads).toBe(2);
  });

  it('the spec defaults: CPU 50 %, memory 40 %, GPU 60 %, disk 50 GB', () => {
    expect(DEFAULT_ALLOCATION).toEqual({ cpu_percent: 50, memory_percent: 40, gpu_percent: 60, disk_gb: 50 });
    expect(sameAllocation(DEFAULT_ALLOCATION, { cpu_percent: 50, memory_percent: 40, gpu_percent: 60, disk_gb: 50 })).toBe(true);
    expect(sameAllocation(DEFAULT_ALLOCATION, { ...DEFAULT_ALLOCATION, disk_gb: 20 })).toBe(false);
    expect(sameAllocation(DEFAULT_ALLOCATION, { cpu_percent: 30, memory_percent: 40, gpu_percent: 60, disk_gb: 50 })).toBe(false);
  });
});
