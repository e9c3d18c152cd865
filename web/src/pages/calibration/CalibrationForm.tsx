import { CdsButton } from '@cds/react/button';
import { type FormEvent, useState } from 'react';
import { type CalibrationCreate, useStartCalibration } from '../../api/calibration';
import { ApiError, messageOf } from '../../api/errors';
import { useAllDatasets, useDisks } from '../../api/storage';
import { FormAlert } from '../../components/FormAlert';
import { SelectField } from '../../components/SelectField';
import { TextField } from '../../components/TextField';

type Kind = CalibrationCreate['kind'];
type TargetKind = CalibrationCreate['target']['kind'];

// The steady-state VDI desktop (DESIGN.md section 7): 10 IOPS, 20 % reads, 32K reads, 4K/8K writes.
const DEFAULTS = {
  iops: '10',
  readPercent: '20',
  readBssplit: '32k/100',
  writeBssplit: '4k/50:8k/50',
  sizeMib: '64',
  threshold: '20',
  start: '10',
  step: '10',
  max: '100',
  stepSeconds: '30',
  patience: '2',
  sanSeconds: '10',
};
type Fields = typeof DEFAULTS;

/** The api's ranges (appliance/control/calibration.py), checked here first so a slip is shown beside its field. */
const RANGES: Partial<Record<keyof Fields, [number, number]>> = {
  iops: [0.1, 1000],
  readPercent: [0, 100],
  sizeMib: [4, 4096],
  threshold: [0.1, 10000],
  start: [1, 2000],
  step: [1, 2000],
  max: [1, 2000],
  stepSeconds: [2, 3600],
  patience: [1, 10],
  sanSeconds: [2, 300],
};

function check(fields: Fields, kind: Kind): Partial<Record<keyof Fields, string>> {
  const errors: Partial<Record<keyof Fields, string>> = {};
  const used: (keyof Fields)[] = kind === 'ramp' ? ['iops', 'readPercent', 'sizeMib', 'threshold', 'start', 'step', 'max', 'stepSeconds', 'patience'] : ['sanSeconds'];
  for (const key of used) {
    const [lo, hi] = RANGES[key]!;
    const value = Number(fields[key]);
    if (fields[key].trim() === '' || !Number.isFinite(value) || value < lo || value > hi) errors[key] = `Enter a number from ${lo} to ${hi}.`;
  }
  if (kind === 'ramp' && !errors.max && !errors.start && Number(fields.max) < Number(fields.start)) errors.max = 'The last step cannot have fewer desktops than the first.';
  return errors;
}

/** Start a desktop-density ramp (on a free LUN or a dataset) or a SAN check of a free LUN. */
export function CalibrationForm() {
  const disks = useDisks();
  const datasets = useAllDatasets();
  const start = useStartCalibration();
  const [kind, setKind] = useState<Kind>('ramp');
  const [targetKind, setTargetKind] = useState<TargetKind>('dataset');
  const [target, setTarget] = useState('');
  const [confirm, setConfirm] = useState(false);
  const [fields, setFields] = useState<Fields>(DEFAULTS);
  const [errors, setErrors] = useState<Partial<Record<keyof Fields | 'target' | 'confirm', string>>>({});

  const lunTarget = kind === 'san_check' || targetKind === 'lun';
  const freeLuns = (disks.data ?? []).filter((d) => !d.in_use && !d.system);
  const fileSystems = datasets.data.filter((d) => d.type === 'FILESYSTEM' && d.mountpoint?.startsWith('/'));
  const choices = lunTarget
    ? freeLuns.map((d) => ({ value: d.path, label: `${d.path} (${(d.size_bytes / 2 ** 30).toFixed(1)} GiB)` }))
    : fileSystems.map((d) => ({ value: d.name, label: `${d.name} (${d.mountpoint})` }));
  const chosen = choices.some((c) => c.value === target) ? target : (choices[0]?.value ?? '');
  const loadingChoices = lunTarget ? disks.isPending : datasets.isPending;
  const choicesError = lunTarget ? disks.error : datasets.error;

  const set = (key: keyof Fields) => (value: string) => {
    setFields((f) => ({ ...f, [key]: value }));
    setErrors((e) => ({ ...e, [key]: undefined }));
    start.reset();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found: typeof errors = check(fields, kind);
    if (!chosen) found.target = lunTarget ? 'No free LUN to test: every LUN is in a pool or holds data.' : 'No mounted dataset: create a pool and a dataset first.';
    if (lunTarget && !confirm) found.confirm = 'Tick the box: the test writes over the whole LUN.';
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    start.mutate({
      kind,
      target: { kind: lunTarget ? 'lun' : 'dataset', name: chosen },
      profile: {
        iops: Number(fields.iops),
        read_percent: Number(fields.readPercent),
        read_bssplit: fields.readBssplit,
        write_bssplit: fields.writeBssplit,
        size_mib: Number(fields.sizeMib),
        iodepth: 4,
      },
      ramp: {
        threshold_ms: Number(fields.threshold),
        start: Number(fields.start),
        step: Number(fields.step),
        max: Number(fields.max),
        step_seconds: Number(fields.stepSeconds),
        patience: Number(fields.patience),
        ramp_seconds: 2,
      },
      san_seconds: Number(fields.sanSeconds),
      confirm_overwrite: lunTarget && confirm,
    });
  };

  const apiError = start.error instanceof ApiError ? start.error : null;
  const fieldOf: Record<string, keyof Fields> = { threshold_ms: 'threshold', start: 'start', step: 'step', max: 'max', step_seconds: 'stepSeconds', patience: 'patience', iops: 'iops', read_percent: 'readPercent', size_mib: 'sizeMib', san_seconds: 'sanSeconds' };
  const apiField = apiError?.field ? fieldOf[apiError.field] : undefined;
  const err = (key: keyof Fields) => errors[key] ?? (apiField === key ? apiError?.message : undefined);
  return (
    <section className="card storage-section" aria-labelledby="calibrate-title">
      <h2 id="calibrate-title" cds-text="section">
        Run a calibration
      </h2>
      <form className="calibration-form" onSubmit={submit} noValidate aria-labelledby="calibrate-title" data-testid="calibration-form">
        {start.isError && !apiField && <FormAlert>{messageOf(start.error)}</FormAlert>}
        {choicesError != null && <FormAlert status="warning">The targets could not be read: {messageOf(choicesError)}</FormAlert>}
        <div className="form-row">
          <SelectField
            label="Test"
            name="kind"
            value={kind}
            options={[
              { value: 'ramp', label: 'Desktops supported (ramp)' },
              { value: 'san_check', label: 'SAN check of a free LUN' },
            ]}
            hint={kind === 'ramp' ? 'Adds simulated desktops step by step until p95 latency passes the threshold.' : '4K random read/write IOPS and 1M sequential bandwidth, one after the other.'}
            onChange={(value) => {
              setKind(value as Kind);
              start.reset();
            }}
          />
          {kind === 'ramp' && (
            <SelectField
              label="Target"
              name="targetKind"
              value={targetKind}
              options={[
                { value: 'dataset', label: 'A dataset (through arcvsa)' },
                { value: 'lun', label: 'A free LUN (the bare SAN)' },
              ]}
              onChange={(value) => {
                setTargetKind(value as TargetKind);
                start.reset();
              }}
            />
          )}
          <SelectField
            label={lunTarget ? 'LUN' : 'Dataset'}
            name="target"
            value={chosen}
            options={choices.length ? choices : [{ value: '', label: loadingChoices ? 'Reading…' : lunTarget ? 'No free LUN' : 'No mounted dataset' }]}
            error={errors.target}
            hint={lunTarget ? 'Only LUNs in no pool and holding nothing are listed.' : 'fio works on files in a folder of its mountpoint, with synchronous writes as ESXi makes them; the dataset is not changed.'}
            onChange={(value) => {
              setTarget(value);
              setErrors((e) => ({ ...e, target: undefined }));
              start.reset();
            }}
          />
        </div>
        {lunTarget && (
          <div className="calibration-warning">
            <label className="checkbox-line">
              <input
                type="checkbox"
                name="confirm"
                checked={confirm}
                aria-invalid={errors.confirm ? true : undefined}
                aria-describedby="calibration-confirm-error"
                onChange={(event) => {
                  setConfirm(event.target.checked);
                  setErrors((e) => ({ ...e, confirm: undefined }));
                }}
              />{' '}
              I understand the test writes over this LUN and everything on it is lost
            </label>
            <p id="calibration-confirm-error" className="text-danger small">
              {errors.confirm ?? ''}
            </p>
          </div>
        )}
        {kind === 'ramp' ? (
          <>
            <fieldset className="calibration-fieldset">
              <legend cds-text="subsection">One desktop (steady state)</legend>
              <div className="form-row">
                <TextField label="IOPS per desktop" name="iops" type="number" width="short" value={fields.iops} error={err('iops')} onChange={set('iops')} />
                <TextField label="Reads (%)" name="readPercent" type="number" width="short" value={fields.readPercent} error={err('readPercent')} onChange={set('readPercent')} />
                <TextField label="Read sizes (fio bssplit)" name="readBssplit" value={fields.readBssplit} hint="32k/100: every read 32 KiB" onChange={set('readBssplit')} />
                <TextField label="Write sizes (fio bssplit)" name="writeBssplit" value={fields.writeBssplit} hint="4k/50:8k/50: half 4 KiB, half 8 KiB" onChange={set('writeBssplit')} />
                <TextField label="Working set (MiB)" name="sizeMib" type="number" width="short" value={fields.sizeMib} error={err('sizeMib')} onChange={set('sizeMib')} />
              </div>
            </fieldset>
            <fieldset className="calibration-fieldset">
              <legend cds-text="subsection">Ramp</legend>
              <div className="form-row">
                <TextField label="p95 threshold (ms)" name="threshold" type="number" width="short" value={fields.threshold} error={err('threshold')} hint="A step fails above it" onChange={set('threshold')} />
                <TextField label="First step (desktops)" name="start" type="number" width="short" value={fields.start} error={err('start')} onChange={set('start')} />
                <TextField label="Desktops added per step" name="step" type="number" width="short" value={fields.step} error={err('step')} onChange={set('step')} />
                <TextField label="Last step at most (desktops)" name="max" type="number" width="short" value={fields.max} error={err('max')} onChange={set('max')} />
                <TextField label="Seconds per step" name="stepSeconds" type="number" width="short" value={fields.stepSeconds} error={err('stepSeconds')} onChange={set('stepSeconds')} />
                <TextField label="Failed steps in a row to stop" name="patience" type="number" width="short" value={fields.patience} error={err('patience')} hint="One noisy step does not end the ramp" onChange={set('patience')} />
              </div>
            </fieldset>
          </>
        ) : (
          <div className="form-row">
            <TextField label="Seconds per test" name="sanSeconds" type="number" width="short" value={fields.sanSeconds} error={err('sanSeconds')} hint="Four tests are run" onChange={set('sanSeconds')} />
          </div>
        )}
        <div className="form-actions">
          <CdsButton type="submit" disabled={start.isPending} loadingState={start.isPending ? 'loading' : 'default'}>
            {kind === 'ramp' ? 'Start the ramp' : 'Start the SAN check'}
          </CdsButton>
        </div>
      </form>
    </section>
  );
}
