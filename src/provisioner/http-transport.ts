import { type AcquiredJob, type JobLog, LeaseLostError, type ProvisionerTransport } from './protocol';

/** The daemon protocol over HTTP with a provisioner key. */
export class HttpProvisionerTransport implements ProvisionerTransport {
  constructor(
    private readonly baseUrl: string,
    private readonly key: string,
  ) {}

  private async post(path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
    const response = await fetch(new URL(path, this.baseUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Service-Provisioner-Key': this.key },
      body: JSON.stringify(body),
      signal,
    });
    if (response.status === 409) {
      await response.body?.cancel();
      throw new LeaseLostError('the job is no longer leased by this daemon');
    }
    if (response.status >= 400) {
      const text = await response.text();
      throw new Error(`${path}: HTTP ${response.status} ${text.slice(0, 200)}`);
    }
    return response;
  }

  async acquire(
    workerId: string,
    workerName: string,
    waitMs: number,
    signal: AbortSignal,
  ): Promise<AcquiredJob | null> {
    const response = await this.post(
      '/api/v2/provisionerdaemons/jobs/acquire',
      { worker_id: workerId, worker_name: workerName, wait_ms: waitMs },
      signal,
    );
    if (response.status === 204) return null;
    return (await response.json()) as AcquiredJob;
  }

  async report(workerId: string, jobId: string, logs: JobLog[]): Promise<void> {
    await (
      await this.post(`/api/v2/provisionerdaemons/jobs/${jobId}/report`, { worker_id: workerId, logs })
    ).body?.cancel();
  }

  async complete(workerId: string, jobId: string): Promise<void> {
    await (
      await this.post(`/api/v2/provisionerdaemons/jobs/${jobId}/complete`, { worker_id: workerId })
    ).body?.cancel();
  }

  async stopWorkspace(workerId: string, workspaceId: string, reason: string): Promise<void> {
    await (
      await this.post(`/api/v2/provisionerdaemons/workspaces/${workspaceId}/stop`, {
        worker_id: workerId,
        reason,
      })
    ).body?.cancel();
  }

  async fail(workerId: string, jobId: string, error: string): Promise<void> {
    await (
      await this.post(`/api/v2/provisionerdaemons/jobs/${jobId}/fail`, { worker_id: workerId, error })
    ).body?.cancel();
  }
}
