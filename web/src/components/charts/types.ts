/** One line of a chart: a value per sample time (null: no value at that time). */
export interface Series {
  key: string;
  label: string;
  /** A CSS colour; LUN-side series are drawn dashed so colour is never the only difference. */
  color: string;
  values: (number | null)[];
  dashed?: boolean;
}
