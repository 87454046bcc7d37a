/**
 * Costa Rica's defaults for a tenant's CRM catalogues, seeded the first time the tenant uses the
 * CRM. Codes follow the official (INEC) numbering: province `1`, canton `101`, district `10101`.
 *
 * Seeded: the 7 provinces and all 84 cantons (including Río Cuarto, Monteverde and Puerto Jiménez);
 * districts for the 20 cantons of San José province (123 districts). Districts of the other
 * provinces are not seeded: a tenant imports them from a spreadsheet.
 */

/** [province, [canton, districts?][]] in official order. */
type Canton = readonly [name: string, districts?: readonly string[]];
export const COSTA_RICA_GEOGRAPHY: readonly (readonly [province: string, cantons: readonly Canton[]])[] = [
  [
    'San José',
    [
      [
        'San José',
        [
          'Carmen',
          'Merced',
          'Hospital',
          'Catedral',
          'Zapote',
          'San Francisco de Dos Ríos',
          'Uruca',
          'Mata Redonda',
          'Pavas',
          'Hatillo',
          'San Sebastián',
        ],
      ],
      ['Escazú', ['Escazú', 'San Antonio', 'San Rafael']],
      [
        'Desamparados',
        [
          'Desamparados',
          'San Miguel',
          'San Juan de Dios',
          'San Rafael Arriba',
          'San Antonio',
          'Frailes',
          'Patarrá',
          'San Cristóbal',
          'Rosario',
          'Damas',
          'San Rafael Abajo',
          'Gravilias',
          'Los Guido',
        ],
      ],
      [
        'Puriscal',
        ['Santiago', 'Mercedes Sur', 'Barbacoas', 'Grifo Alto', 'San Rafael', 'Candelarita', 'Desamparaditos', 'San Antonio', 'Chires'],
      ],
      ['Tarrazú', ['San Marcos', 'San Lorenzo', 'San Carlos']],
      ['Aserrí', ['Aserrí', 'Tarbaca', 'Vuelta de Jorco', 'San Gabriel', 'Legua', 'Monterrey', 'Salitrillos']],
      ['Mora', ['Colón', 'Guayabo', 'Tabarcia', 'Piedras Negras', 'Picagres', 'Jaris', 'Quitirrisí']],
      ['Goicoechea', ['Guadalupe', 'San Francisco', 'Calle Blancos', 'Mata de Plátano', 'Ipís', 'Rancho Redondo', 'Purral']],
      ['Santa Ana', ['Santa Ana', 'Salitral', 'Pozos', 'Uruca', 'Piedades', 'Brasil']],
      ['Alajuelita', ['Alajuelita', 'San Josecito', 'San Antonio', 'Concepción', 'San Felipe']],
      ['Vázquez de Coronado', ['San Isidro', 'San Rafael', 'Dulce Nombre de Jesús', 'Patalillo', 'Cascajal']],
      ['Acosta', ['San Ignacio', 'Guaitil', 'Palmichal', 'Cangrejal', 'Sabanillas']],
      ['Tibás', ['San Juan', 'Cinco Esquinas', 'Anselmo Llorente', 'León XIII', 'Colima']],
      ['Moravia', ['San Vicente', 'San Jerónimo', 'La Trinidad']],
      ['Montes de Oca', ['San Pedro', 'Sabanilla', 'Mercedes', 'San Rafael']],
      ['Turrubares', ['San Pablo', 'San Pedro', 'San Juan de Mata', 'San Luis', 'Carara']],
      ['Dota', ['Santa María', 'Jardín', 'Copey']],
      ['Curridabat', ['Curridabat', 'Granadilla', 'Sánchez', 'Tirrases']],
      [
        'Pérez Zeledón',
        [
          'San Isidro de El General',
          'El General',
          'Daniel Flores',
          'Rivas',
          'San Pedro',
          'Platanares',
          'Pejibaye',
          'Cajón',
          'Barú',
          'Río Nuevo',
          'Páramo',
          'La Amistad',
        ],
      ],
      ['León Cortés Castro', ['San Pablo', 'San Andrés', 'Llano Bonito', 'San Isidro', 'Santa Cruz', 'San Antonio']],
    ],
  ],
  [
    'Alajuela',
    [
      ['Alajuela'],
      ['San Ramón'],
      ['Grecia'],
      ['San Mateo'],
      ['Atenas'],
      ['Naranjo'],
      ['Palmares'],
      ['Poás'],
      ['Orotina'],
      ['San Carlos'],
      ['Zarcero'],
      ['Sarchí'],
      ['Upala'],
      ['Los Chiles'],
      ['Guatuso'],
      ['Río Cuarto'],
    ],
  ],
  ['Cartago', [['Cartago'], ['Paraíso'], ['La Unión'], ['Jiménez'], ['Turrialba'], ['Alvarado'], ['Oreamuno'], ['El Guarco']]],
  [
    'Heredia',
    [
      ['Heredia'],
      ['Barva'],
      ['Santo Domingo'],
      ['Santa Bárbara'],
      ['San Rafael'],
      ['San Isidro'],
      ['Belén'],
      ['Flores'],
      ['San Pablo'],
      ['Sarapiquí'],
    ],
  ],
  [
    'Guanacaste',
    [
      ['Liberia'],
      ['Nicoya'],
      ['Santa Cruz'],
      ['Bagaces'],
      ['Carrillo'],
      ['Cañas'],
      ['Abangares'],
      ['Tilarán'],
      ['Nandayure'],
      ['La Cruz'],
      ['Hojancha'],
    ],
  ],
  [
    'Puntarenas',
    [
      ['Puntarenas'],
      ['Esparza'],
      ['Buenos Aires'],
      ['Montes de Oro'],
      ['Osa'],
      ['Quepos'],
      ['Golfito'],
      ['Coto Brus'],
      ['Parrita'],
      ['Corredores'],
      ['Garabito'],
      ['Monteverde'],
      ['Puerto Jiménez'],
    ],
  ],
  ['Limón', [['Limón'], ['Pococí'], ['Siquirres'], ['Talamanca'], ['Matina'], ['Guácimo']]],
];

export interface GeoSeedRow {
  level: 'province' | 'canton' | 'district';
  code: string;
  parentCode: string | null;
  name: string;
}

/** The geography as rows in insertion order (parents first), with their official codes. */
export function costaRicaGeoRows(): GeoSeedRow[] {
  const rows: GeoSeedRow[] = [];
  COSTA_RICA_GEOGRAPHY.forEach(([province, cantons], p) => {
    const provinceCode = String(p + 1);
    rows.push({ level: 'province', code: provinceCode, parentCode: null, name: province });
    cantons.forEach(([canton, districts], c) => {
      const cantonCode = `${provinceCode}${String(c + 1).padStart(2, '0')}`;
      rows.push({ level: 'canton', code: cantonCode, parentCode: provinceCode, name: canton });
      (districts ?? []).forEach((district, d) =>
        rows.push({ level: 'district', code: `${cantonCode}${String(d + 1).padStart(2, '0')}`, parentCode: cantonCode, name: district }),
      );
    });
  });
  return rows;
}

/** Case types every tenant starts with; the console translates the codes it knows. */
export const DEFAULT_CASE_TYPES = [
  { code: 'query', name: 'Consulta' },
  { code: 'request', name: 'Solicitud' },
  { code: 'complaint', name: 'Queja' },
  { code: 'claim', name: 'Reclamo' },
  { code: 'incident', name: 'Incidencia' },
] as const;

/**
 * Costa Rica's identification documents, with the shape of each number (digits only, as the
 * registries write them without dashes): cédula física 9 digits, cédula jurídica 10 (starting
 * with 3), DIMEX 11 or 12, NITE 10, passport 6 to 20 letters and digits.
 */
export const DEFAULT_IDENTIFICATION_TYPES = [
  { code: 'cedula_fisica', name: 'Cédula física', pattern: '[1-9]\\d{8}' },
  { code: 'cedula_juridica', name: 'Cédula jurídica', pattern: '3\\d{9}' },
  { code: 'dimex', name: 'DIMEX', pattern: '\\d{11,12}' },
  { code: 'nite', name: 'NITE', pattern: '\\d{10}' },
  { code: 'pasaporte', name: 'Pasaporte', pattern: '[A-Za-z0-9]{6,20}' },
] as const;
