// Finding this process's cgroups from /proc/self/cgroup and /proc/self/mountinfo (run/cgroups.ts), on the
// layouts users have: the hybrid one of this test machine, pure cgroup v2 on a systemd desktop, a
// container whose cgroup namespace shows its own root, a mount that shows only part of a hierarchy, and
// paths with spaces. The texts are those the kernel writes (proc(5)); the real files are read by the
// setups of cgroupSetups.test.ts.
import * as assert from 'node:assert/strict';
import { cgroupMounts, ownCgroupsOf } from '../../src/core/run/cgroups';

const HYBRID_MOUNTS = [
  '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct',
  '35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids',
  '40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime shared:9 - cgroup cgroup rw,xattr,name=systemd',
  '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime shared:10 - cgroup2 cgroup2 rw,nsdelegate',
].join('\n');

describe("cgroups: finding this process's cgroups on any layout (mountinfo, /proc/self/cgroup)", () => {
  it('hybrid: the v1 controllers where they are mounted (cpu and cpuacct together), and the unified mount', () => {
    const own = ownCgroupsOf(
      ['9:name=systemd:/user.slice/a.scope', '4:memory:/user.slice', '3:pids:/user.slice/a.scope', '2:cpu,cpuacct:/user.slice', '0::/user.slice/a.scope'].join(
        '\n',
      ),
      HYBRID_MOUNTS,
    );
    assert.deepEqual(own, {
      memory: '/sys/fs/cgroup/memory/user.slice',
      pids: '/sys/fs/cgroup/pids/user.slice/a.scope',
      cpuacct: '/sys/fs/cgroup/cpu,cpuacct/user.slice',
      v2: '/sys/fs/cgroup/unified/user.slice/a.scope',
    });
    assert.deepEqual(cgroupMounts(HYBRID_MOUNTS).find((m) => m.controllers.includes('name=systemd'))?.mountPoint, '/sys/fs/cgroup/systemd');
  });

  it('pure v2 (a systemd desktop): only the unified hierarchy, at /sys/fs/cgroup', () => {
    const own = ownCgroupsOf(
      '0::/user.slice/user-1000.slice/user@1000.service/app.slice/code.scope\n',
      '30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n',
    );
    assert.deepEqual(own, { v2: '/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/code.scope' });
  });

  it('v1 listed in /proc/self/cgroup but not mounted (only cgroup2 mounted, as in a container): only v2 counts', () => {
    const own = ownCgroupsOf('4:memory:/\n2:cpu,cpuacct:/\n0::/\n', '500 499 0:38 / /sys/fs/cgroup rw,relatime - cgroup2 none rw\n');
    assert.deepEqual(own, { v2: '/sys/fs/cgroup' });
  });

  it('a mount of part of the hierarchy: a path inside it maps below the mount point, one outside is not reachable', () => {
    const mounts = '600 599 0:30 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n';
    assert.deepEqual(ownCgroupsOf('0::/docker/abc/app\n', mounts), { v2: '/sys/fs/cgroup/app' });
    assert.deepEqual(ownCgroupsOf('0::/docker/abd\n', mounts), {});
    assert.deepEqual(ownCgroupsOf('0::/docker/abc\n', mounts), { v2: '/sys/fs/cgroup' });
  });

  it('mount points with spaces (mountinfo escapes them as \\040), and a later mount over an earlier one wins', () => {
    const mounts = ['41 31 0:38 / /mnt/cg\\040two rw - cgroup2 cgroup2 rw', '42 31 0:38 / /mnt/later rw - cgroup2 cgroup2 rw'].join('\n');
    assert.equal(cgroupMounts(mounts)[0]!.mountPoint, '/mnt/cg two');
    assert.deepEqual(ownCgroupsOf('0::/x\n', mounts), { v2: '/mnt/later/x' });
  });

  it('no cgroup filesystem mounted, or no /proc: nothing', () => {
    assert.deepEqual(ownCgroupsOf('0::/\n', '22 1 0:21 / /proc rw - proc proc rw\n'), {});
    assert.deepEqual(ownCgroupsOf('', ''), {});
  });
});
