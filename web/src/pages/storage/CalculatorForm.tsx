import { CdsButton } from '@cds/react/button';
import { type FormEvent, useState } from 'react';
import { ApiError, messageOf } from '../../api/errors';
import { type DesktopPoolType, useRecommendation } from '../../api/storage';
import { FormAlert } from '../../components/FormAlert';
import { SelectField } from '../../components/SelectField';
import { TextField } from '../../components/TextField';
import { PlanResult } from './PlanResult';
import { POOL_TYPES } from './poolTypes';
import { type CalculatorDraft, DEFAULT_DRAFT, FIELDS, type NumberField, validateCalculator } from './tuningModel';

/** The sizing calculator: the desktop pool and the appliance in, every recommendation with its why out. */
export function CalculatorForm() {
  const recommend = useRecommendation();
  const [draft, setDraft] = useState<CalculatorDraft>(DEFAULT_DRAFT);
  const [errors, setErrors] = useState<Partial<Record<NumberField, string>>>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const invalid = validateCalculator(draft);
    setErrors(invalid);
    if (Object.keys(invalid).length) return;
    const n = (name: NumberField) => Number(draft[name]);
    recommend.mutate({
      pool_type: draft.pool_type as DesktopPoolType,
      desktops: n('desktops'),
      desktop_gib: n('desktop_gib'),
      golden_gib: n('golden_gib'),
      ram_gib: n('ram_gib'),
      l2arc_ssd_gib: n('l2arc_ssd_gib'),
      slog_ssd_gib: n('slog_ssd_gib'),
      write_mib_s: n('write_mib_s'),
      compression_ratio: n('compression_ratio'),
    });
  };

  const apiField = recommend.error instanceof ApiError ? recommend.error.field : null;
  return (
    <section className="card storage-form" aria-labelledby="calculator-title">
      <h2 id="calculator-title" cds-text="section">
        Sizing calculator
      </h2>
      <p className="muted">It only calculates: nothing on the appliance changes until you apply the module parameters.</p>
      <form onSubmit={submit} noValidate aria-labelledby="calculator-title">
        {recommend.isError && !apiField && <FormAlert>{messageOf(recommend.error)}</FormAlert>}
        <SelectField
          label="Desktop pool type"
          name="pool_type"
          value={draft.pool_type}
          options={POOL_TYPES}
          onChange={(pool_type) => setDraft({ ...draft, pool_type })}
        />
        <div className="calculator-grid">
          {FIELDS.map((f) => (
            <TextField
              key={f.name}
              label={f.label}
              name={f.name}
              type="number"
              value={draft[f.name]}
              hint={f.hint}
              error={errors[f.name] ?? (apiField === f.name ? messageOf(recommend.error) : undefined)}
              onChange={(value) => {
                setDraft({ ...draft, [f.name]: value });
                setErrors((current) => {
                  const next = { ...current };
                  delete next[f.name];
                  return next;
                });
              }}
            />
          ))}
        </div>
        <div className="form-actions">
          <CdsButton type="submit" disabled={recommend.isPending} loadingState={recommend.isPending ? 'loading' : 'default'}>
            Calculate
          </CdsButton>
        </div>
      </form>
      {recommend.isSuccess && <PlanResult plan={recommend.data} />}
    </section>
  );
}
